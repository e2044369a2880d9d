package lumen.trace;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Bytes read strictly as UTF-8 (RFC 3629): the first byte that starts no valid character is reported with its offset. */
public final class Utf8 {
    private Utf8() {}

    /** The bytes are not UTF-8: {@code offset} is the first byte that starts no valid character, {@code value} that byte. */
    public static final class Malformed extends Exception {
        public final int offset;
        public final int value;

        Malformed(int offset, int value) {
            super(String.format(java.util.Locale.ROOT, "byte %d (0x%02x) starts no valid character", offset, value), null, false, false);
            this.offset = offset;
            this.value = value;
        }
    }

    /** The text of {@code bytes} (from its position to its limit), or {@link Malformed} at the first bad byte. */
    public static String strict(ByteBuffer bytes) throws Malformed {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer out = CharBuffer.allocate(bytes.remaining() + 1);
        int start = bytes.position();
        CoderResult r = d.decode(bytes, out, true);
        if (!r.isError()) {
            r = d.flush(out);
        }
        if (r.isError()) {
            throw new Malformed(bytes.position() - start, bytes.get(bytes.position()) & 0xff);
        }
        return out.flip().toString();
    }
}
