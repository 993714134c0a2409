package dev.orchestrate.serve;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One request and its one response: the connection is closed after it ({@code Connection: close}),
 * so no connection waits idle for a next request.
 */
final class Exchange {
  private final RequestHead request;
  private final OutputStream out;
  private final InputStream in;
  private final List<Map.Entry<String, String>> responseHeaders = new ArrayList<>();
  private boolean responded;

  /** @param in the connection's input after the head: the body, if the request has one */
  Exchange(RequestHead request, OutputStream out, InputStream in) {
    this.request = request;
    this.out = out;
    this.in = in;
  }

  /** A request body the server does not take: none said how long it is, or it is longer than asked. */
  static final class BodyRefused extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    BodyRefused(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /**
   * The request's body, of the length its one {@code Content-Length} says, at most {@code maxBytes}
   * (a chunked body, which no browser sends for a form, is refused with 411).
   *
   * @throws IOException when the client closes or stops before its body ends (the connection's
   *                     deadlines still hold)
   */
  byte[] body(int maxBytes) throws IOException, BodyRefused {
    List<String> lengths = request.header("Content-Length");
    if (!request.header("Transfer-Encoding").isEmpty() || lengths.size() != 1
        || !lengths.get(0).matches("[0-9]{1,10}")) {
      throw new BodyRefused(411, "length required: send the form with one Content-Length");
    }
    long length = Long.parseLong(lengths.get(0));
    if (length > maxBytes) {
      throw new BodyRefused(413, "the form is over " + maxBytes + " bytes");
    }
    byte[] body = in.readNBytes((int) length);
    if (body.length < length) {
      throw new java.io.EOFException("the client closed before the end of its body");
    }
    return body;
  }

  String method() {
    return request.method();
  }

  URI uri() {
    return request.uri();
  }

  String protocol() {
    return request.protocol();
  }

  RequestHead request() {
    return request;
  }

  /** Sets response header {@code name}, replacing any value it had. */
  void set(String name, String value) {
    responseHeaders.removeIf(h -> h.getKey().equalsIgnoreCase(name));
    add(name, value);
  }

  /** Adds a value of response header {@code name}. */
  void add(String name, String value) {
    if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("a line break in the value of response header " + name);
    }
    responseHeaders.add(Map.entry(name, value));
  }

  boolean responded() {
    return responded;
  }

  /**
   * Sends the status line, the headers set, {@code Content-Length} and {@code Connection: close},
   * then the body unless {@code withBody} is false (HEAD: the length is still the body's).
   */
  void respond(int status, byte[] body, boolean withBody) throws IOException {
    if (responded) {
      throw new IllegalStateException("the response has been sent");
    }
    responded = true;
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status))
        .append("\r\n");
    for (Map.Entry<String, String> h : responseHeaders) {
      head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
    }
    head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (withBody) {
      out.write(body);
    }
    out.flush();
  }

  static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 303 -> "See Other";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 411 -> "Length Required";
      case 413 -> "Content Too Large";
      case 415 -> "Unsupported Media Type";
      case 414 -> "URI Too Long";
      case 421 -> "Misdirected Request";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      default -> "";
    };
  }
}
