package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real headless Chromium driven through chromedriver over the W3C WebDriver protocol (plain
 * JSON over HTTP: no Selenium). {@code chromium} and {@code chromedriver} are found on {@code PATH}
 * (Debian's {@code chromium} and {@code chromium-driver}); tests skip with a message naming what is
 * missing when they are not ({@link #require()}).
 */
final class WebDriver implements AutoCloseable {
  private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path chromium;
  private final Process driver;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String base;
  private final String session;

  /** Skips the calling test, with what to install, unless chromium and chromedriver are on PATH. */
  static void require() {
    OnPath.require("the dashboard's browser tests are skipped", OnPath.Tool.CHROMIUM, OnPath.Tool.CHROMEDRIVER);
  }

  WebDriver(Path profile) throws Exception {
    Path[] programs = OnPath.require("the dashboard's browser tests are skipped", OnPath.Tool.CHROMIUM,
        OnPath.Tool.CHROMEDRIVER);
    chromium = programs[0];
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    driver = new ProcessBuilder(programs[1].toString(), "--port=" + port)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    base = "http://127.0.0.1:" + port;
    try {
      session = startSession(profile);
    } catch (Exception | AssertionError e) {
      driver.destroyForcibly();
      throw e;
    }
  }

  private String startSession(Path profile) throws Exception {
    waitFor("chromedriver ready", () -> call("GET", "/status", null).path("value").path("ready").asBoolean(false));
    ObjectNode caps = JSON.createObjectNode();
    ObjectNode options = caps.putObject("capabilities").putObject("alwaysMatch").putObject("goog:chromeOptions");
    options.put("binary", chromium.toString());
    var args = options.putArray("args");
    for (String a : List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile)) {
      args.add(a);
    }
    JsonNode value = call("POST", "/session", caps).path("value");
    if (!value.hasNonNull("sessionId")) {
      throw new IllegalStateException("chromedriver started no session: " + value);
    }
    return value.get("sessionId").asText();
  }

  void open(String url) throws Exception {
    command("POST", "/url", JSON.createObjectNode().put("url", url));
  }

  /** Runs {@code script} (a function body) in the page and returns its value. */
  JsonNode script(String script) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("script", script);
    body.putArray("args");
    return command("POST", "/execute/sync", body);
  }

  String text(String script) throws Exception {
    return script(script).asText();
  }

  void click(String css) throws Exception {
    JsonNode found = command("POST", "/element",
        JSON.createObjectNode().put("using", "css selector").put("value", css));
    command("POST", "/element/" + found.path(ELEMENT).asText() + "/click", JSON.createObjectNode());
  }

  byte[] screenshot() throws Exception {
    return Base64.getDecoder().decode(command("GET", "/screenshot", null).asText());
  }

  /** Polls {@code script} until its value passes {@code until}, up to {@code seconds}. */
  JsonNode await(String what, String script, Predicate<JsonNode> until, int seconds) throws Exception {
    Instant deadline = Instant.now().plusSeconds(seconds);
    JsonNode last = null;
    while (Instant.now().isBefore(deadline)) {
      last = script(script);
      if (until.test(last)) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(what + ": not within " + seconds + " s; last value " + last);
  }

  private JsonNode command(String method, String path, JsonNode body) throws Exception {
    JsonNode answer = call(method, "/session/" + session + path, body);
    JsonNode value = answer.path("value");
    if (value.isObject() && value.has("error")) {
      throw new IllegalStateException("webdriver " + path + ": " + value.path("error").asText() + ": "
          + value.path("message").asText());
    }
    return value;
  }

  private JsonNode call(String method, String path, JsonNode body) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json").method(method,
          HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    }
    return JSON.readTree(http.send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  private static void waitFor(String what, Check check) throws Exception {
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new AssertionError(what + ": not within 30 s");
  }

  /** Never throws InterruptedException (an AutoCloseable should not): the flag is kept instead. */
  @Override
  public void close() throws IOException {
    try {
      if (session != null) {
        call("DELETE", "/session/" + session, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      driver.destroy();
      try {
        if (!driver.waitFor(10, TimeUnit.SECONDS)) {
          driver.destroyForcibly();
        }
      } catch (InterruptedException e) {
        driver.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
