package dev.orchestrate.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The test server does not outlive a test JVM killed with SIGKILL. */
class EmbeddedPostgresServerTest {
  /** A JVM that starts the server, says where it is, and waits to be killed. */
  public static void main(String[] args) throws Exception {
    Path data = EmbeddedPostgresServer.dataDirectory();
    String postmaster = Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim();
    System.out.println(postmaster + " " + data);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void a_test_jvm_killed_with_sigkill_takes_its_server_and_data_directory_with_it() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process jvm = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        EmbeddedPostgresServerTest.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String line;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
      line = out.readLine();
    }
    assertNotNull(line, "the child JVM started its server");
    long pid = Long.parseLong(line.substring(0, line.indexOf(' ')));
    Path data = Path.of(line.substring(line.indexOf(' ') + 1));
    Optional<ProcessHandle> postmaster = ProcessHandle.of(pid);
    assertTrue(postmaster.isPresent() && postmaster.get().isAlive(), "the server runs");

    jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
    assertTrue(jvm.waitFor(10, TimeUnit.SECONDS));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while ((postmaster.get().isAlive() || Files.exists(data)) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(postmaster.get().isAlive(), "the server " + pid + " was stopped");
    assertFalse(Files.exists(data), "its data directory " + data + " was removed");
  }
}
