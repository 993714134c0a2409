package dev.orchestrate.serve;

/**
 * The one escaping function every value on a page goes through, text and attribute context
 * alike: titles, summaries, failure contexts and logs come from agents and users. Besides the
 * markup characters, control characters and bidirectional overrides show as visible escapes, so
 * that a log line cannot reorder or hide what is shown around it.
 */
final class Html {
  private Html() {
  }

  static String esc(Object value) {
    if (value == null) {
      return "";
    }
    String s = value.toString();
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        case '\n', '\t' -> out.append(c);
        default -> {
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (c >= 0x202a && c <= 0x202e)
              || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
