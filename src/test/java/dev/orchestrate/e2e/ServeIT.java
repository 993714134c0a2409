package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code orchestrate serve} through the built launcher: bound beyond loopback it generates a
 * token, prints it once on stderr and asks for it; and the other commands load none of its classes.
 */
class ServeIT {
  private static final Pattern URL = Pattern.compile("at (http://\\S+/)");
  private static final Pattern TOKEN = Pattern.compile("\\(shown once\\): (\\S+)");

  @TempDir
  Path dir;

  @Test
  void serve_on_all_addresses_prints_a_generated_token_once_and_asks_for_it() throws Exception {
    Launcher.copyTree(Launcher.HOME.resolve("examples"), dir.resolve("examples"));
    String state = dir.resolve("state").toString();
    Launcher.Result run = Launcher.run(dir, "--state", state, "run", "examples/backlog.yaml");
    assertTrue(run.exitCode() <= 1, run.err());
    Process serve = Launcher.builder(dir, "--state", state, "serve", "--port", "0", "--bind", "0.0.0.0")
        .redirectError(dir.resolve("serve-err.txt").toFile()).start();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertNotNull(line, "serve printed where it listens");
      Matcher url = URL.matcher(line);
      assertTrue(url.find(), line);
      assertTrue(line.contains("token required"), line);
      String err = Files.readString(dir.resolve("serve-err.txt"));
      Matcher token = TOKEN.matcher(err);
      assertTrue(token.find(), err);
      assertEquals(1, err.split("shown once", -1).length - 1, "printed once: " + err);

      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(401, refused.statusCode());
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(url.group(1) + "items"))
          .header("Authorization", "Bearer " + token.group(1)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("WRK-001"), page.body());
    } finally {
      serve.destroy();
      assertTrue(serve.waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
    }
    assertFalse(Files.exists(dir.resolve("state/state.db-shm")) && !Files.exists(dir.resolve("state/state.db-wal")),
        "no -shm left without its WAL");
  }

  @Test
  void status_stats_and_a_run_load_no_class_of_the_dashboard_nor_the_http_server() throws Exception {
    Launcher.copyTree(Launcher.HOME.resolve("examples"), dir.resolve("examples"));
    String state = dir.resolve("state").toString();
    for (List<String> args : List.of(List.of("--state", state, "run", "examples/backlog.yaml"),
        List.of("--state", state, "status", "--json"), List.of("--state", state, "stats", "--json"))) {
      String loaded = loadedClasses(args);
      assertTrue(loaded.contains("dev.orchestrate.cli.OrchestrateCommand"), "the probe sees our classes load");
      assertFalse(loaded.contains("dev.orchestrate.serve."), args + " loaded the dashboard");
      assertFalse(loaded.contains("com.sun.net.httpserver"), args + " loaded the HTTP server");
    }
  }

  private String loadedClasses(List<String> args) throws Exception {
    Path log = dir.resolve("class-load.log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:off", "-Xlog:class+load=info:file=" + log, "-jar",
        Launcher.HOME.resolve("target/orchestrate.jar").toString()));
    command.addAll(args);
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile()).start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "orchestrate " + args + " finished");
    assertTrue(p.exitValue() <= 1, Files.readString(dir.resolve("err.txt")));
    return Files.readString(log, StandardCharsets.UTF_8);
  }
}
