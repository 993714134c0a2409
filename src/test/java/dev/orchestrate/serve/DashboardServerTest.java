package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's HTTP edge over a state that does not exist yet (every page is cheap): which
 * {@code Host} it answers to, that slow clients cannot starve a normal request, and that the
 * token leaves the address however its name is spelled. Raw sockets where a client would not let
 * the test say what a hostile one says.
 */
class DashboardServerTest {
  private static final String TOKEN = "0123456789abcdef-token";
  private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir
  Path dir;

  private DashboardServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private int start(String bind, String token) throws IOException {
    server = DashboardServer.start(TestStores.backend(dir.resolve("state")), new InetSocketAddress(bind, 0), token,
        Clock.systemUTC());
    return server.port();
  }

  /** The status code and body of a request written as {@code head} (lines without their CRLF). */
  private static String[] raw(int port, String... head) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write((String.join("\r\n", head) + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int end = answer.indexOf("\r\n\r\n");
      return new String[] {answer.split(" ", 3)[1], end < 0 ? "" : answer.substring(end + 4)};
    }
  }

  @Test
  void a_request_naming_another_host_is_refused_with_421_before_the_token_or_a_page() throws Exception {
    int port = start("127.0.0.1", null);
    for (String host : List.of("evil.example:" + port, "evil.example", "127.0.0.1:" + (port + 1), "127.0.0.1",
        "localhost.evil.example:" + port, "127.0.0.1:" + port + ".evil.example")) {
      String[] answer = raw(port, "GET / HTTP/1.1", "Host: " + host);
      assertEquals("421", answer[0], host);
      assertTrue(answer[1].startsWith("misdirected request"), host + ": " + answer[1]);
      assertFalse(answer[1].contains("evil"), "the Host is not echoed: " + answer[1]);
    }
    assertEquals("421", raw(port, "GET /static/dashboard.js HTTP/1.1", "Host: evil.example:" + port)[0]);
    for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port)) {
      assertEquals("200", raw(port, "GET / HTTP/1.1", "Host: " + host)[0], host);
    }
  }

  @Test
  void with_a_token_a_foreign_host_is_refused_before_the_token_is_looked_at() throws Exception {
    int port = start("127.0.0.1", TOKEN);
    assertEquals("421", raw(port, "GET /?token=" + TOKEN + " HTTP/1.1", "Host: evil.example:" + port)[0]);
    assertEquals("401", raw(port, "GET / HTTP/1.1", "Host: 127.0.0.1:" + port)[0]);
  }

  @Test
  void a_request_without_host_is_answered_in_http_1_0_and_refused_with_400_in_http_1_1() throws Exception {
    int port = start("127.0.0.1", null);
    assertEquals("200", raw(port, "GET / HTTP/1.0")[0]);
    assertEquals("400", raw(port, "GET / HTTP/1.1")[0]);
    assertEquals("400", raw(port, "GET / HTTP/1.1", "Host: 127.0.0.1:" + port, "Host: evil.example:" + port)[0]);
  }

  @Test
  void bound_to_all_addresses_it_answers_to_any_address_literal_but_to_no_name_but_localhost() throws Exception {
    int port = start("0.0.0.0", TOKEN);
    String bearer = "Authorization: Bearer " + TOKEN;
    assertEquals("200", raw(port, "GET / HTTP/1.1", "Host: 127.0.0.1:" + port, bearer)[0]);
    assertEquals("200", raw(port, "GET / HTTP/1.1", "Host: 192.0.2.7:" + port, bearer)[0]);
    assertEquals("200", raw(port, "GET / HTTP/1.1", "Host: localhost:" + port, bearer)[0]);
    assertEquals("421", raw(port, "GET / HTTP/1.1", "Host: rebound.example:" + port, bearer)[0]);
  }

  @Test
  void twenty_clients_trickling_their_headers_do_not_delay_a_normal_request() throws Exception {
    int port = start("127.0.0.1", TOKEN);
    HttpRequest normal = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(5)).build();
    // Once before, so that the time measured below is the server's, not the client's first start.
    assertEquals(200, HTTP.send(normal, HttpResponse.BodyHandlers.ofString()).statusCode());
    List<Socket> slow = new ArrayList<>();
    ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < 20; i++) {
        Socket s = new Socket("127.0.0.1", port);
        s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: ")
            .getBytes(StandardCharsets.ISO_8859_1));
        slow.add(s);
      }
      trickle.scheduleAtFixedRate(() -> {
        for (Socket s : slow) {
          try {
            s.getOutputStream().write('a');
          } catch (IOException closedByTheServer) {
            // what the server may do to a slow client
          }
        }
      }, 500, 500, TimeUnit.MILLISECONDS);
      Thread.sleep(300); // the server has taken them in before the normal request
      long started = System.nanoTime();
      HttpResponse<String> page = HTTP.send(normal, HttpResponse.BodyHandlers.ofString());
      long millis = (System.nanoTime() - started) / 1_000_000;
      assertEquals(200, page.statusCode());
      assertTrue(millis < 1000, "a normal request beside 20 slow clients took " + millis + " ms");
    } catch (java.net.http.HttpTimeoutException e) {
      throw new AssertionError("a normal request beside 20 slow clients had no answer in 5 s", e);
    } finally {
      trickle.shutdownNow();
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void a_percent_encoded_token_parameter_is_traded_for_the_cookie_and_leaves_the_address() throws Exception {
    int port = start("127.0.0.1", TOKEN);
    String base = "http://127.0.0.1:" + port;
    for (String query : List.of("?status=done&%74oken=" + TOKEN, "?status=done&%74%6F%6B%65%6E=" + TOKEN,
        "?status=done&token=" + TOKEN + "&%74oken=" + TOKEN)) {
      HttpResponse<String> exchange = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/items" + query)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(303, exchange.statusCode(), query);
      String location = exchange.headers().firstValue("Location").orElse("");
      assertEquals("/items?status=done", location, query);
      String cookie = exchange.headers().firstValue("Set-Cookie").orElse("").split(";")[0];
      HttpResponse<String> next = HTTP.send(HttpRequest.newBuilder(URI.create(base + location))
          .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, next.statusCode(), "no second redirect after " + query);
    }
  }
}
