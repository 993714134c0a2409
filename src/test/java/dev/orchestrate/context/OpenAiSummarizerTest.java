package dev.orchestrate.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OpenAI-compatible client against a real HTTP server on 127.0.0.1. */
class OpenAiSummarizerTest {
  private static final String KEY = "sk-test-secret-123";

  private HttpServer server;
  private ExecutorService executor;
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  private volatile String answer = "";
  private volatile boolean hang;
  /** Answers with an error body that quotes the request's Authorization header, as some proxies do. */
  private volatile boolean echoAuthorization;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    executor = Executors.newCachedThreadPool();
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    paths.add(exchange.getRequestURI().getPath());
    bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
    if (echoAuthorization) {
      answer = "{\"error\":{\"message\":\"Incorrect API key provided: "
          + exchange.getRequestHeaders().getFirst("Authorization") + "\",\"type\":\"invalid_request_error\"}}";
    }
    if (hang) {
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  private String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/";
  }

  private OpenAiSummarizer client(Duration timeout) {
    return new OpenAiSummarizer(baseUrl(), "tiny-model", "SUMMARY_KEY", timeout, Map.of("SUMMARY_KEY", KEY)::get);
  }

  private static String completion(String content) {
    return "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        + (content == null ? "null" : "\"" + content + "\"") + "}}]}";
  }

  @Test
  void returns_the_content_of_the_first_choice() throws Exception {
    answer = completion("- decided: Postgres 16\\n- src/db/Schema.java");
    String summary = client(Duration.ofSeconds(5)).summarize("the prompt");
    assertEquals("- decided: Postgres 16\n- src/db/Schema.java", summary);
    assertEquals(List.of("/v1/chat/completions"), paths);
    assertEquals(List.of("Bearer " + KEY), authorizations);
  }

  @Test
  void the_request_asks_for_temperature_0_and_at_most_4096_tokens() throws Exception {
    answer = completion("ok");
    client(Duration.ofSeconds(5)).summarize("Preserve all technical decisions.\n<TURNS>…</TURNS>");
    JsonNode body = new ObjectMapper().readTree(bodies.get(0));
    assertEquals(0, body.get("temperature").asInt());
    assertTrue(body.get("temperature").isIntegralNumber() || body.get("temperature").asDouble() == 0.0);
    assertEquals(4096, body.get("max_tokens").asInt());
    assertEquals("tiny-model", body.get("model").asText());
    assertEquals("user", body.at("/messages/0/role").asText());
    assertEquals("Preserve all technical decisions.\n<TURNS>…</TURNS>", body.at("/messages/0/content").asText());
  }

  @Test
  void a_server_error_is_a_summarization_exception_with_the_status() {
    status = 500;
    answer = "{\"error\":{\"message\":\"overloaded\"}}";
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    assertTrue(e.getMessage().contains("overloaded"), e.getMessage());
    assertFalse(e.getMessage().contains(KEY));
  }

  @Test
  void a_401_whose_body_echoes_the_bearer_key_is_an_exception_with_the_key_masked() {
    status = 401;
    echoAuthorization = true;
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertEquals(List.of("Bearer " + KEY), authorizations, "the key was sent");
    assertFalse(e.getMessage().contains(KEY), e.getMessage());
    assertTrue(e.getMessage().contains("HTTP 401") && e.getMessage().contains("Incorrect API key provided: Bearer ***"),
        e.getMessage());
  }

  @Test
  void a_key_echoed_at_the_end_of_a_long_body_leaves_no_part_of_it_in_the_cut_excerpt() {
    status = 401;
    String padding = "x".repeat(182); // the key straddles the 200th character
    answer = "{\"error\":\"" + padding + " " + KEY + "\"}";
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertFalse(e.getMessage().contains(KEY.substring(0, 6)), e.getMessage());
  }

  @Test
  void malformed_json_is_a_summarization_exception() {
    answer = "{\"choices\": [";
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertTrue(e.getMessage().contains("not JSON"), e.getMessage());
  }

  @Test
  void json_without_a_message_content_is_a_summarization_exception() {
    answer = "{\"choices\": []}";
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertTrue(e.getMessage().contains("no choices[0].message.content"), e.getMessage());
  }

  @Test
  void empty_content_is_a_summarization_exception() {
    answer = completion("  ");
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofSeconds(5)).summarize("p"));
    assertTrue(e.getMessage().contains("empty"), e.getMessage());
    answer = completion(null);
    assertThrows(SummarizationException.class, () -> client(Duration.ofSeconds(5)).summarize("p"));
  }

  @Test
  void a_server_that_never_answers_times_out_after_the_configured_timeout() {
    hang = true;
    long start = System.nanoTime();
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> client(Duration.ofMillis(300)).summarize("p"));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(e.getMessage().contains("no answer") && e.getMessage().contains("300 ms"), e.getMessage());
    assertTrue(millis >= 250 && millis < 5_000, "took " + millis + " ms");
  }

  @Test
  void a_closed_port_is_a_summarization_exception() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    OpenAiSummarizer closed = new OpenAiSummarizer("http://127.0.0.1:" + port + "/v1", "m", null,
        Duration.ofSeconds(2), name -> null);
    SummarizationException e = assertThrows(SummarizationException.class, () -> closed.summarize("p"));
    assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
  }

  @Test
  void a_missing_api_key_variable_fails_without_calling_the_server() {
    OpenAiSummarizer noKey = new OpenAiSummarizer(baseUrl(), "m", "SUMMARY_KEY", Duration.ofSeconds(2), name -> null);
    SummarizationException e = assertThrows(SummarizationException.class, () -> noKey.summarize("p"));
    assertTrue(e.getMessage().contains("SUMMARY_KEY"), e.getMessage());
    assertTrue(bodies.isEmpty());
  }

  @Test
  void the_name_carries_the_model_and_never_the_key() {
    assertEquals("openai:tiny-model", client(Duration.ofSeconds(1)).name());
  }
}
