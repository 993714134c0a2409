package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The git boundary: the program orchestrate runs, and the configuration it runs git with. */
class GitTest {
  @TempDir
  Path tmp;

  @Test
  void every_key_that_names_a_program_is_overridden_and_nothing_else() {
    String listing = String.join("\0",
        "user.name\nTest", "include.path\n/tmp/x.cfg", "filter.evil.clean\ntouch m", "filter.evil.required\ntrue",
        "filter.a.b.c.smudge\nx", "filter.lfs.process\ngit-lfs filter-process", "merge.m.driver\nrun %A",
        "merge.m.name\nnice", "diff.d.textconv\ncat", "diff.d.command\nx", "credential.helper\nstore",
        "credential.https://example.com.helper\n!evil", "pager.log\nless", "core.pager\nless", "core.editor\nvi",
        "core.autocrlf\ninput", "trailer.sign.command\nx", "gpg.program\nx", "gpg.ssh.defaultkeycommand\nx",
        "sequence.editor\nx", "flag.without.value", "");
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("filter.evil.clean", "");
    expected.put("filter.evil.required", "false");
    expected.put("filter.a.b.c.smudge", "");
    expected.put("filter.lfs.process", "");
    expected.put("merge.m.driver", "MERGE");
    expected.put("diff.d.textconv", "");
    expected.put("diff.d.command", "");
    expected.put("credential.helper", "");
    expected.put("credential.https://example.com.helper", "");
    expected.put("pager.log", "false");
    expected.put("core.pager", "");
    expected.put("core.editor", "");
    expected.put("trailer.sign.command", "");
    expected.put("gpg.program", "");
    expected.put("gpg.ssh.defaultkeycommand", "");
    expected.put("sequence.editor", "");
    List<ConfigListings.Setting> settings = ConfigListings.parse(
        java.util.Arrays.stream(listing.split("\0")).map(e -> "local\0file:/r/.git/config\0" + e)
            .collect(java.util.stream.Collectors.joining("\0")));
    assertEquals(expected, ConfigListings.overrides(settings, "MERGE"));
  }

  @Test
  void git_is_resolved_to_a_real_absolute_path_and_relative_path_entries_are_skipped() throws Exception {
    Path relative = Path.of("target/git-test-bin-" + ProcessHandle.current().pid());
    Files.createDirectories(relative);
    Path fake = relative.resolve("git");
    Files.writeString(fake, "#!/bin/sh\nexit 1\n");
    fake.toFile().setExecutable(true);
    Path absolute = tmp.resolve("bin");
    Files.createDirectories(absolute);
    Path real = absolute.resolve("real-git");
    Files.writeString(real, "#!/bin/sh\nexit 0\n");
    real.toFile().setExecutable(true);
    Files.createSymbolicLink(absolute.resolve("git"), real);
    try {
      assertEquals(real.toRealPath().toString(), Git.resolve("git", relative + ":" + absolute));
      assertEquals("git", Git.resolve("git", relative + ":.:"), "only relative entries: the bare name");
      assertEquals("git", Git.resolve("git", null));
    } finally {
      Files.delete(fake);
      Files.delete(relative);
    }
  }

  @Test
  void a_filter_planted_in_the_config_or_an_include_never_runs_in_orchestrates_commands() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Path marker = tmp.resolve("MARKER");
    Path included = tmp.resolve("included.cfg");
    Files.writeString(included, "[filter \"inc\"]\n\tclean = touch " + marker + "; cat\n\trequired = true\n");
    repo.git("config", "filter.evil.clean", "touch " + marker + "; cat");
    repo.git("config", "filter.evil.smudge", "touch " + marker + "; cat");
    repo.git("config", "include.path", included.toString());
    repo.write(".gitattributes", "*.txt filter=evil\n*.md filter=inc\n");
    repo.write("a.txt", "a\n");
    repo.write("b.md", "b\n");
    Git git = new Git();
    Git.Place place = new Git.Place(repo.dir, repo.dir.resolve(".git"), repo.dir.resolve(".git"), repo.dir);
    git.ok(place, "add", "--all");
    git.ok(place, GitRepo.AUTHOR, List.of("commit", "--quiet", "-m", "x"));
    git.ok(place, "reset", "--quiet", "--hard", "HEAD~1");
    git.ok(place, "reset", "--quiet", "--hard", "HEAD@{1}");
    git.ok(place, "status", "--porcelain");
    assertFalse(Files.exists(marker), "the planted filter ran");
    // the repository's own git (no orchestrate) would run it: the plant is real
    new ProcessBuilder("git", "-C", repo.dir.toString(), "add", "--renormalize", ".").start().waitFor();
    assertTrue(Files.exists(marker), "the test's plant works with plain git");
  }

  @Test
  void a_configuration_too_large_to_list_in_full_refuses_the_command() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    StringBuilder big = new StringBuilder("[x]\n");
    for (int i = 0; i < 20_000; i++) {
      big.append("\tk").append(i).append(" = ").append("v".repeat(10)).append('\n');
    }
    Files.writeString(repo.dir.resolve(".git/config"), big, java.nio.file.StandardOpenOption.APPEND);
    GitException e = assertThrows(GitException.class, () -> new Git().run(repo.dir, "status"));
    assertTrue(e.getMessage().contains("larger than 256 KiB"), e.getMessage());
  }

  @Test
  void an_include_of_a_fifo_fails_the_command_instead_of_hanging() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Path fifo = tmp.resolve("fifo");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
    repo.git("config", "include.path", fifo.toString());
    Git git = new Git(Git.resolve("git", System.getenv("PATH")), Duration.ofSeconds(2));
    long start = System.nanoTime();
    GitException e = assertThrows(GitException.class, () -> git.run(repo.dir, "status"));
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 30, "bounded");
    assertTrue(e.getMessage().contains("did not finish"), e.getMessage());
  }

  @Test
  void a_pinned_place_wins_over_the_repository_git_would_discover_in_the_directory() {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    GitRepo other = GitRepo.init(tmp.resolve("other"));
    other.write("other.txt", "x\n");
    other.commitAll("other");
    Git.Place place = new Git.Place(other.dir, repo.dir.resolve(".git"), repo.dir.resolve(".git"), repo.dir);
    assertEquals(repo.head("HEAD"), new Git().ok(place, "rev-parse", "HEAD").line());
    assertEquals(other.head("HEAD"), new Git().ok(other.dir, "rev-parse", "HEAD").line());
  }
  /**
   * Issue 43: an interrupted push (Ctrl-C, a stop of the run) killed git alone, so the remote's
   * receive-pack and its hanging pre-receive hook, with the hook's children, ran on. The whole
   * tree goes now, on an interrupt as on a timeout.
   */
  @Test
  void an_interrupted_push_stops_the_remotes_hook_and_everything_under_it() throws Exception {
    Git git = new Git();
    Path remote = tmp.resolve("remote.git");
    git.ok(tmp, "init", "-q", "--bare", remote.toString());
    String marker = "3141." + System.nanoTime(); // a sleep no other process runs
    Path started = tmp.resolve("hook-started");
    Path hook = remote.resolve("hooks/pre-receive");
    Files.writeString(hook, "#!/bin/sh\nsleep " + marker + " &\ntouch " + started + "\nwait\n");
    hook.toFile().setExecutable(true);
    Path work = tmp.resolve("work");
    git.ok(tmp, "init", "-q", work.toString());
    Files.writeString(work.resolve("a.txt"), "a\n");
    git.ok(work, "add", "a.txt");
    git.ok(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    Thread pusher = new Thread(() -> {
      try {
        git.run(work, "push", remote.toString(), "HEAD:refs/heads/main");
      } catch (RuntimeException e) {
        failure.set(e);
      }
    });
    pusher.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(started) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(Files.exists(started), "the hook started");
    // the hook touches its file right after forking the sleep, which may not have exec'd it yet
    while (sleepers(marker).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertFalse(sleepers(marker).isEmpty(), "the hook's child runs");
    long hookSession = session(sleepers(marker).get(0).pid());
    assertTrue(hookSession != session(ProcessHandle.current().pid()) && hookSession > 0,
        "git runs in a session of its own: a Ctrl-C at the terminal reaches orchestrate, not git behind its back");

    pusher.interrupt();
    pusher.join(30_000);

    assertFalse(pusher.isAlive());
    assertTrue(failure.get() instanceof GitException && failure.get().getMessage().contains("was interrupted"),
        String.valueOf(failure.get()));
    deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!sleepers(marker).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(List.of(), sleepers(marker), "nothing of the push is left running");
  }

  /** The session id of {@code pid} (field 6 of /proc/PID/stat). */
  private static long session(long pid) throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]);
  }

  private static List<ProcessHandle> sleepers(String marker) {
    return ProcessHandle.allProcesses().filter(p -> p.info().arguments()
        .map(args -> List.of(args).contains(marker)).orElse(false)).toList();
  }

  /** A repository with big.txt of 400,000 lines (2.9 MB) committed, as a pinned place. */
  private Git.Place bigRepo(GitRepo repo) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 1; i <= 400_000; i++) {
      lines.append(i).append('\n');
    }
    repo.write("big.txt", lines.toString());
    repo.commitAll("big");
    return Git.Place.repository(repo.dir.resolve(".git"));
  }

  /** Counts what it is given, keeping nothing. */
  private static final class Counting extends java.io.OutputStream {
    long bytes;
    long largestWrite;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
      largestWrite = Math.max(largestWrite, len);
    }
  }

  @Test
  void a_streamed_command_hands_on_its_output_in_buffers_up_to_the_cap_and_says_when_there_was_more() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Git.Place place = bigRepo(repo);
    Git git = new Git();
    Counting all = new Counting();
    Git.Streamed whole = git.stream(place, List.of("show", "HEAD:big.txt"), Long.MAX_VALUE, all);
    assertTrue(whole.ok() && !whole.cut(), whole.toString());
    assertEquals(Files.size(repo.dir.resolve("big.txt")), all.bytes);
    assertEquals(all.bytes, whole.bytes());
    assertTrue(all.largestWrite <= 8192, "a buffer at a time: " + all.largestWrite);

    Counting capped = new Counting();
    Git.Streamed cut = git.stream(place, List.of("show", "HEAD:big.txt"), 100_000, capped);
    assertTrue(cut.ok() && cut.cut(), cut.toString());
    assertEquals(100_000, capped.bytes);
    assertEquals(100_000, cut.bytes());

    Counting exact = new Counting();
    Git.Streamed fits = git.stream(place, List.of("show", "HEAD:big.txt"), all.bytes, exact);
    assertFalse(fits.cut(), "exactly the cap is all of it");
    assertEquals(all.bytes, exact.bytes);
  }

  @Test
  void a_sink_that_fails_stops_git_and_the_time_a_sink_takes_is_not_gits() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Git.Place place = bigRepo(repo);
    java.io.IOException failed = assertThrows(java.io.IOException.class, () -> new Git().stream(place,
        List.of("show", "HEAD:big.txt"), Long.MAX_VALUE, new java.io.OutputStream() {
          @Override
          public void write(int b) throws java.io.IOException {
            throw new java.io.IOException("pager quit");
          }
        }));
    assertEquals("pager quit", failed.getMessage());

    Git quick = new Git(Git.resolve("git", System.getenv("PATH")), Duration.ofSeconds(1));
    // about 350 writes of 10 ms: git waits on its pipe for 3.5 s, past its limit of 1 s
    Git.Streamed slowReader = quick.stream(place, List.of("show", "HEAD:big.txt"), Long.MAX_VALUE,
        new java.io.OutputStream() {
          @Override
          public void write(int b) {
          }

          @Override
          public void write(byte[] b, int off, int len) {
            try {
              Thread.sleep(10);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    assertTrue(slowReader.ok(), "a reader slower than git's limit is the user's time: " + slowReader);
    assertEquals(Files.size(repo.dir.resolve("big.txt")), slowReader.bytes());
  }

  @Test
  void a_streamed_command_that_hangs_is_killed_at_its_limit() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Path fifo = tmp.resolve("fifo");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
    repo.write("x.txt", "x\n");
    repo.commitAll("x");
    Git git = new Git(Git.resolve("git", System.getenv("PATH")), Duration.ofSeconds(2));
    long start = System.nanoTime();
    GitException e = assertThrows(GitException.class, () -> git.stream(Git.Place.repository(repo.dir.resolve(".git")),
        List.of("diff", "-O" + fifo, "HEAD~1", "HEAD"), Long.MAX_VALUE, new Counting()));
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 30, "bounded");
    assertTrue(e.getMessage().contains("did not finish within 2 s"), e.getMessage());
  }
}
