package dev.orchestrate.limits;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end of a file an agent could have replaced: real files, a real FIFO and a real link. */
class FileTailTest {
  @TempDir
  Path dir;

  @Test
  void the_last_bytes_of_a_regular_file_and_where_they_start() throws Exception {
    Path log = dir.resolve("output.log");
    Files.writeString(log, "0123456789");
    FileTail.Tail all = FileTail.read(log, 64, Duration.ofSeconds(5));
    assertEquals("0123456789", new String(all.bytes(), StandardCharsets.UTF_8));
    assertEquals(0, all.start());
    FileTail.Tail end = FileTail.read(log, 4, Duration.ofSeconds(5));
    assertArrayEquals("6789".getBytes(StandardCharsets.UTF_8), end.bytes());
    assertEquals(6, end.start());
    assertEquals(10, end.size());
  }

  @Test
  void a_fifo_in_the_files_place_is_given_up_after_the_timeout_and_its_reader_released() throws Exception {
    Path fifo = dir.resolve("output.log");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    long began = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> FileTail.read(fifo, 64, Duration.ofMillis(300)));
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    assertTrue(took < 5_000, "given up after its timeout, not blocked: " + took + " ms");
    assertTrue(e.getMessage().contains("was not read within 300 ms"), e.getMessage());
    // the blocked open is released: no reader thread is left waiting for a writer
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("file-tail-reader"))) {
      assertTrue(System.nanoTime() < deadline, "the reader thread is still blocked");
      Thread.sleep(20);
    }
  }

  @Test
  void a_link_is_never_followed_and_a_missing_file_says_so() throws Exception {
    Path target = dir.resolve("secret.txt");
    Files.writeString(target, "not yours");
    Path link = dir.resolve("output.log");
    Files.createSymbolicLink(link, target);
    assertThrows(IOException.class, () -> FileTail.read(link, 64, Duration.ofSeconds(5)));
    assertThrows(NoSuchFileException.class, () -> FileTail.read(dir.resolve("gone.log"), 64, Duration.ofSeconds(5)));
  }
}
