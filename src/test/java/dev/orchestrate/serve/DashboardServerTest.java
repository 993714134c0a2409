package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's HTTP edge over a state that does not exist yet (every page is cheap). */
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
