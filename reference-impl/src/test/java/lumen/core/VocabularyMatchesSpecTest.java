package lumen.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Java vocabulary and the TLA+ spec must name the same states, phases, actions and properties. */
class VocabularyMatchesSpecTest {

    private static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "../spec"));

    private static String module(String name) throws IOException {
        return Files.readString(SPEC.resolve(name + ".tla"));
    }

    private static boolean defines(String text, String operator) {
        return Pattern.compile("(?m)^" + Pattern.quote(operator) + "(\\(.*\\))?\\s*==").matcher(text).find();
    }

    private static Set<String> stringSet(String text, String operator) {
        Matcher m = Pattern.compile(Pattern.quote(operator) + "\\s*==\\s*\\{([^}]*)}").matcher(text);
        assertTrue(m.find(), operator + " is not defined as a set of strings");
        Set<String> values = new LinkedHashSet<>();
        Matcher s = Pattern.compile("\"([A-Z_]+)\"").matcher(m.group(1));
        while (s.find()) {
            values.add(s.group(1));
        }
        return values;
    }

    @Test
    void everyPropertyIsDefinedInItsModule() throws IOException {
        for (PropertyId p : PropertyId.values()) {
            assertTrue(defines(module(p.specModule()), p.specOperator()),
                    p.specOperator() + " is not defined in " + p.specModule() + ".tla");
        }
    }

    @Test
    void everyActionIsASpecOperator() throws IOException {
        String all = String.join("\n", module("Cluster"), module("CheckpointPlacement"),
                module("FailureRouting"), module("DraftHandover"));
        for (Action a : Action.values()) {
            assertTrue(defines(all, a.specName()), a.specName() + " is not a spec action");
        }
    }

    @Test
    void workerStatesMatch() throws IOException {
        Set<String> java = new LinkedHashSet<>(Arrays.stream(WorkerState.values()).map(Enum::name).toList());
        assertEquals(stringSet(module("Cluster"), "WorkerStates"), java);
    }

    @Test
    void phasesMatchExceptTheRuntimeOnlyPrefill() throws IOException {
        Set<String> java = new LinkedHashSet<>(Arrays.stream(RequestPhase.values()).map(Enum::name).toList());
        java.remove(RequestPhase.PREFILL.name());
        assertEquals(stringSet(module("Cluster"), "Phases"), java);
    }

    @Test
    void operatorNamesFollowTheIdRule() {
        assertEquals("S4_HolderIsNotServerInv", PropertyId.S4.specOperator());
        assertEquals("A2_RoutingFollowsRuleProp", PropertyId.A2.specOperator());
        assertEquals("L1_EveryRequestCompletes", PropertyId.L1.specOperator());
        assertEquals("S10 NoServingBeforeFullModel", PropertyId.S10.label());
    }
}
