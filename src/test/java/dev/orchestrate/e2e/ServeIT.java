package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
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
    assertEquals(130, serve.exitValue(), "stopped by SIGTERM, serve exits 130 as run does (README, exit codes)");
    assertFalse(Files.exists(dir.resolve("state/state.db-shm")) && !Files.exists(dir.resolve("state/state.db-wal")),
        "no -shm left without its WAL");
  }

  /**
   * The bounds in the process the launcher starts: a client trickling its head is cut off at the
   * 5 s deadline, and a ninth connection from one address is closed at once while eight are open,
   * while another address is answered.
   */
  @Test
  void a_client_trickling_its_request_head_is_cut_off_and_connections_beyond_8_from_one_address_are_closed()
      throws Exception {
    Process serve = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "serve", "--port", "0")
        .redirectError(dir.resolve("serve-err.txt").toFile()).start();
    List<Socket> open = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertNotNull(line, "serve printed where it listens");
      int port = Integer.parseInt(line.replaceAll(".*:(\\d+)/.*", "$1"));

      long started = System.nanoTime();
      try (Socket slow = new Socket("127.0.0.1", port)) {
        slow.setSoTimeout(1000);
        OutputStream trickle = slow.getOutputStream();
        trickle.write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: ").getBytes(StandardCharsets.UTF_8));
        boolean cut = false;
        while (!cut && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20)) {
          try {
            trickle.write('a');
            cut = slow.getInputStream().read() < 0;
          } catch (SocketTimeoutException stillReading) {
            // one byte a second, as a slow client sends
          } catch (IOException reset) {
            cut = true;
          }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        assertTrue(cut, "a client trickling its head was not cut off in 20 s");
        assertTrue(seconds >= 3 && seconds <= 15, "cut off after " + seconds + " s, not about 5");
      }

      for (int i = 0; i < 8; i++) {
        open.add(from("127.0.0.2", port));
      }
      try (Socket beyond = from("127.0.0.2", port)) {
        beyond.setSoTimeout(5000);
        beyond.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
        int read;
        try {
          read = beyond.getInputStream().read();
        } catch (IOException reset) {
          read = -1;
        }
        assertEquals(-1, read, "the ninth connection from 127.0.0.2 is closed without an answer");
      }
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode(), "127.0.0.1 is answered beside the eight");
    } finally {
      for (Socket s : open) {
        s.close();
      }
      serve.destroy();
      assertTrue(serve.waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
    }
  }

  /** A connection from {@code address} (any of 127.0.0.0/8 on Linux) to the server on 127.0.0.1. */
  private static Socket from(String address, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(address, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    return s;
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
