package dev.orchestrate.e2e;

import com.sun.net.httpserver.HttpExchange;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP request a fake model server answered: when (epoch ms), what, for which model (null when
 * the request named none), and with which status; the recorder turns a list of these into the
 * request count and the gaps between retries.
 */
record ServedRequest(long atMillis, String method, String path, String model, int status) {

  /** The exchange attribute a fake sets to the model its request asked for. */
  static final String MODEL = "model";

  static ServedRequest of(HttpExchange exchange, int status) {
    Object model = exchange.getAttribute(MODEL);
    return new ServedRequest(System.currentTimeMillis(), exchange.getRequestMethod(),
        exchange.getRequestURI().getPath(), model == null ? null : model.toString(), status);
  }

  /** A response as the client saw it: status line, the headers that were set, blank line, body. */
  static String shown(int status, HttpExchange exchange, String body) {
    StringBuilder text = new StringBuilder("HTTP ").append(status).append('\n');
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    exchange.getResponseHeaders().forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT),
        String.join(", ", values)));
    headers.forEach((name, value) -> text.append(name).append(": ").append(value).append('\n'));
    return text.append('\n').append(body).toString();
  }
}
