package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
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
        // From three addresses, so that each stays under the cap per address and all 20 are held.
        Socket s = from("127.0.0." + (2 + i % 3), port);
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

  /** A connection from {@code address} (any of 127.0.0.0/8 on Linux) to the server on 127.0.0.1. */
  private static Socket from(String address, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(address, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    return s;
  }

  private static HttpRequest page(int port) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build();
  }

  /** True when the server closed {@code s} without answering (end of stream or a reset). */
  private static boolean closedUnanswered(Socket s) throws IOException {
    s.setSoTimeout(30_000);
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketException reset) {
      return true;
    }
  }

  private static void closeAll(List<Socket> sockets) throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
  }

  @Test
  void sixty_four_idle_connections_and_a_slow_one_from_one_address_leave_the_dashboard_to_another() throws Exception {
    int port = start("127.0.0.1", TOKEN);
    List<Socket> attacker = new ArrayList<>();
    try {
      Socket slow = from("127.0.0.2", port);
      slow.getOutputStream().write("GET / HTTP/1.1\r\nHost: 127.0.0.1:".getBytes(StandardCharsets.ISO_8859_1));
      attacker.add(slow);
      for (int i = 0; i < 64; i++) {
        attacker.add(from("127.0.0.2", port));
      }
      // Before, the 64 took every connection the server would open, and this was closed unanswered.
      HttpResponse<String> answer = HTTP.send(page(port), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, answer.statusCode());
    } finally {
      closeAll(attacker);
    }
  }

  @Test
  void a_ninth_connection_from_one_address_is_closed_unanswered_while_eight_are_open() throws Exception {
    int port = start("127.0.0.1", TOKEN);
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        open.add(from("127.0.0.2", port));
      }
      try (Socket ninth = from("127.0.0.2", port)) {
        ninth.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer "
            + TOKEN + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        assertTrue(closedUnanswered(ninth), "the ninth connection from 127.0.0.2 was answered");
      }
      assertEquals(200, HTTP.send(page(port), HttpResponse.BodyHandlers.ofString()).statusCode(),
          "another address is served meanwhile");
    } finally {
      closeAll(open);
    }
  }

  @Test
  void a_client_behind_sixty_four_idle_connections_from_its_own_address_is_served_once_their_deadline_passed()
      throws Exception {
    int port = start("127.0.0.1", TOKEN);
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        idle.add(new Socket("127.0.0.1", port));
      }
      // The cap turns this address away while the idle ones are open; the head deadline closes them.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      HttpResponse<String> answer = null;
      while (answer == null && System.nanoTime() < until) {
        try {
          answer = HTTP.send(page(port), HttpResponse.BodyHandlers.ofString());
        } catch (IOException turnedAway) {
          Thread.sleep(200);
        }
      }
      assertNotNull(answer, "no answer in 15 s beside 64 idle connections of the same address");
      assertEquals(200, answer.statusCode());
    } finally {
      closeAll(idle);
    }
  }

  @Test
  void a_client_sending_its_head_a_byte_at_a_time_is_cut_off_before_it_ends_it() throws Exception {
    int port = start("127.0.0.1", null);
    try (Socket slow = new Socket("127.0.0.1", port)) {
      slow.setSoTimeout(500);
      OutputStream out = slow.getOutputStream();
      byte[] head = ("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: " + "a".repeat(120) + "\r\n\r\n")
          .getBytes(StandardCharsets.ISO_8859_1);
      // Each byte arrives well within any idle timeout; at two a second the head would take a minute.
      boolean cut = false;
      for (int i = 0; i < head.length && !cut; i++) {
        try {
          out.write(head[i]);
          out.flush();
          int read = slow.getInputStream().read(); // waits half a second while the server waits too
          assertTrue(read < 0, "answered before the head was complete");
          cut = true;
        } catch (SocketTimeoutException stillReading) {
          // the server is still waiting for the rest
        } catch (SocketException reset) {
          cut = true;
        }
      }
      assertTrue(cut, "the server waited for the whole head, a byte every 0.5 s");
    }
  }

  @Test
  void a_head_over_16_kib_is_answered_431_before_any_handler_and_the_answer_is_not_lost_to_a_reset()
      throws Exception {
    int port = start("127.0.0.1", TOKEN);
    String[] answer = raw(port, "GET / HTTP/1.1", "Host: 127.0.0.1:" + port, "X-Big: " + "a".repeat(40_000));
    assertEquals("431", answer[0]);
    assertEquals("request header fields too large\n", answer[1]);
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
