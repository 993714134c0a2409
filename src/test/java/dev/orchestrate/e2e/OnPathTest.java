package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/** The end-to-end tests' tools are found on PATH as .ci/run's {@code command -v} finds them. */
class OnPathTest {
  @TempDir
  Path dir;

  private Path program(String in, String name, boolean executable) throws Exception {
    Path p = Files.createDirectories(dir.resolve(in)).resolve(name);
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    return p;
  }

  @Test
  void the_first_executable_on_path_wins_wherever_it_is() throws Exception {
    program("a", "tmux", false);
    Path b = program("b", "tmux", true);
    program("c", "tmux", true);
    Files.createDirectories(dir.resolve("d/chromium"));
    String path = String.join(":", "", dir.resolve("missing").toString(), dir.resolve("a").toString(),
        dir.resolve("d").toString(), dir.resolve("b").toString(), dir.resolve("c").toString());

    assertEquals(b, OnPath.find("tmux", path));
    assertNull(OnPath.find("chromium", path), "a directory is not a program");
    assertNull(OnPath.find("tmux", null));
  }

  @Test
  void a_missing_program_skips_naming_it_and_the_debian_package_that_installs_it() throws Exception {
    Path chromium = program("bin", "chromium", true);
    String path = dir.resolve("bin").toString();

    TestAbortedException skip = assertThrows(TestAbortedException.class,
        () -> OnPath.require(path, "the browser tests are skipped", OnPath.Tool.CHROMIUM, OnPath.Tool.CHROMEDRIVER,
            OnPath.Tool.TMUX));
    assertEquals("Assumption failed: chromedriver, tmux not on PATH (Debian: apt-get install -y chromium-driver tmux; "
        + ".ci/run does so when run as root): the browser tests are skipped", skip.getMessage());
    assertArrayEquals(new Path[] {chromium}, OnPath.require(path, "skipped", OnPath.Tool.CHROMIUM));
  }
}
