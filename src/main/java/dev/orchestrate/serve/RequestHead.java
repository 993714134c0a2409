package dev.orchestrate.serve;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The head of an HTTP/1.x request: its request line and header fields, read up to the empty line
 * that ends it. The body, if any, is never read: the dashboard answers GET and HEAD and closes
 * the connection after each response.
 *
 * @param headers by name in any case, each value in the order sent
 */
record RequestHead(String method, URI uri, String protocol, Map<String, List<String>> headers) {
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern VERSION = Pattern.compile("HTTP/1\\.[0-9]");

  RequestHead {
    Map<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
    headers = Collections.unmodifiableMap(copy);
  }

  /** The values of header {@code name}, in any case; empty when it was not sent. */
  List<String> header(String name) {
    return headers.getOrDefault(name, List.of());
  }

  /** The first value of header {@code name}, or null. */
  String first(String name) {
    List<String> values = header(name);
    return values.isEmpty() ? null : values.get(0);
  }

  /** A head the server refuses with {@code status} before any handler sees it. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Malformed(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /**
   * Reads a head of at most {@code maxBytes} bytes (ISO-8859-1, lines ending in CRLF or LF).
   *
   * @throws EOFException when the client closes before the head ends
   * @throws Malformed    when it is not one the server answers: 414 for a request line longer than
   *                      the limit, 431 for a longer head, 400 for anything else it cannot parse
   */
  static RequestHead read(InputStream in, int maxBytes) throws IOException, Malformed {
    int[] budget = {maxBytes};
    String line = line(in, budget);
    while (line != null && line.isEmpty()) { // an empty line before the request line is allowed (RFC 9112, 2.2)
      line = line(in, budget);
    }
    if (line == null) {
      throw new Malformed(414, "request URI too long");
    }
    String[] parts = line.split(" ", -1);
    if (controls(line) || parts.length != 3 || !TOKEN.matcher(parts[0]).matches()
        || !VERSION.matcher(parts[2]).matches()) {
      throw new Malformed(400, "bad request: not an HTTP/1 request line");
    }
    URI uri;
    try {
      uri = new URI(parts[1]);
    } catch (URISyntaxException e) {
      throw new Malformed(400, "bad request: the request target is not a URI");
    }
    Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (String field = line(in, budget); field == null || !field.isEmpty(); field = line(in, budget)) {
      if (field == null) {
        throw new Malformed(431, "request header fields too large");
      }
      int colon = field.indexOf(':');
      // No folded line and no space before the colon: both have been used to smuggle requests.
      if (colon <= 0 || controls(field) || !TOKEN.matcher(field.substring(0, colon)).matches()) {
        throw new Malformed(400, "bad request: a malformed header field");
      }
      headers.computeIfAbsent(field.substring(0, colon), k -> new ArrayList<>())
          .add(field.substring(colon + 1).strip());
    }
    return new RequestHead(parts[0], uri, parts[2], headers);
  }

  /** One line without its end, or null once the head is over {@code budget[0]} bytes. */
  private static String line(InputStream in, int[] budget) throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("the client closed before the end of its request head");
      }
      if (--budget[0] < 0) {
        return null;
      }
      if (b == '\n') {
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
      }
      line.append((char) b);
    }
  }

  /** True when {@code line} holds a control character other than a tab (a lone CR among them). */
  private static boolean controls(String line) {
    return line.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f);
  }
}
