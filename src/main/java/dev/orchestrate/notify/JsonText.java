package dev.orchestrate.notify;

/**
 * The few JSON writes the notification document needs: a string escaped per RFC 8259 (control
 * characters as {@code \\uXXXX}, and the line separators too, so that a document never breaks a
 * JavaScript consumer). The project's JSON writer lives in {@code cli}, which this package must not
 * use.
 */
final class JsonText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonText() {}

  /** {@code text} as a JSON string literal, quotes included; {@code null} as {@code null}. */
  static void string(StringBuilder out, String text) {
    if (text == null) {
      out.append("null");
      return;
    }
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
                .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
