package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which processes a job token lets a later runner find, with real processes and /proc. */
class JobTokensTest {
  @TempDir
  Path dir;

  @Test
  void a_dead_runners_agents_are_found_by_its_id_whatever_jobs_directory_either_runner_keeps() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
    Path itsJobs = dir.resolve("runner-0/jobs");
    Path mine = dir.resolve("runner-1/jobs");
    ProcessBuilder agent = new ProcessBuilder("sleep", "30");
    agent.environment().put(JobProcesses.TOKEN_VARIABLE, JobProcesses.newToken(itsJobs, "runner-a"));
    Process p = execed(agent.start());
    try {
      assertTrue(found(JobProcesses.ofState(mine, "runner-a"), p), "found from another jobs directory");
      assertTrue(found(JobProcesses.ofState(itsJobs, "runner-a"), p), "found from its own");
      assertFalse(found(JobProcesses.ofState(itsJobs, "runner-b"), p), "not another runner's");
      assertFalse(found(JobProcesses.ofState(itsJobs, null), p), "not a single run's restart");
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void a_single_runs_agents_are_found_by_its_jobs_directory() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
    Path jobs = dir.resolve("jobs");
    ProcessBuilder agent = new ProcessBuilder("sleep", "30");
    agent.environment().put(JobProcesses.TOKEN_VARIABLE, JobProcesses.newToken(jobs, null));
    Process p = execed(agent.start());
    try {
      assertTrue(found(JobProcesses.ofState(jobs, null), p));
      assertFalse(found(JobProcesses.ofState(dir.resolve("other/jobs"), null), p), "another state's run");
      assertFalse(found(JobProcesses.ofState(jobs, "runner-a"), p), "a runner of a shared state");
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The scan at an agent's end reads the environment only of processes that started with the agent
   * or after it: one carrying the token that is older than the agent is not the job's (a job's
   * processes are forked from its agent, or given its token after it was made); one started after
   * it is found by its token, another in its session by that.
   */
  @Test
  void a_process_older_than_the_agent_is_not_the_jobs_and_a_later_one_is() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
    String token = JobProcesses.newToken(dir.resolve("jobs"), null);
    Process older = sleeper(token);
    Process agent = null;
    Process later = null;
    try {
      long olderStart = JobProcesses.startTicks(Path.of("/proc", Long.toString(older.pid())));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      do { // a later clock tick (10 ms) than the older process's
        Thread.sleep(20);
        if (agent != null) {
          agent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        agent = leading(execed(new ProcessBuilder("setsid", "sleep", "30").start()));
      } while (JobProcesses.startTicks(Path.of("/proc", Long.toString(agent.pid()))) <= olderStart
          && System.nanoTime() < deadline);
      later = sleeper(token);
      JobProcesses job = new JobProcesses(agent.pid(), token).startedWith(agent.pid());
      assertFalse(found(job, older), "older than the agent: not the job's, its environment not read");
      assertTrue(found(job, later), "started after the agent with the token");
      assertTrue(found(job, agent), "the agent's session");
      assertTrue(found(new JobProcesses(agent.pid(), token), older), "without the agent's start: by the token");
    } finally {
      for (Process p : new Process[] {older, agent, later}) {
        if (p != null) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  @Test
  void a_stat_line_gives_its_session_and_start_whatever_the_command_name_holds() throws Exception {
    String rest = " S 1 4242 4242 0 -1 4194560 120 0 0 0 1 2 0 0 20 0 1 0 987654 8192000 200 18446744073709551615";
    assertArrayEquals(new long[] {4242, 987654}, parse("4243 (sleep)" + rest + "\n"));
    assertArrayEquals(new long[] {4242, 987654}, parse("4243 (a) 5 6 (b) c)" + rest + "\n"), "spaces and parentheses");
    assertArrayEquals(new long[] {4242, 987654}, parse("4243 (x)" + rest), "no newline");
    assertNull(parse("4243 (x) S 1 4242 4242"), "cut short");
    assertNull(parse("4243 x S 1 4242"), "no command name");
    assertNull(parse("4243 (x) S 1 4242 42x2 0 -1 4194560 120 0 0 0 1 2 0 0 20 0 1 0 987654 1"), "not a number");
    assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "needs /proc");
    byte[] self = Files.readAllBytes(Path.of("/proc/self/stat"));
    String text = new String(self, java.nio.charset.StandardCharsets.ISO_8859_1);
    String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
    assertArrayEquals(new long[] {Long.parseLong(fields[3]), Long.parseLong(fields[19])},
        JobProcesses.parseStat(self, self.length), "this JVM's own, as split would read it");
  }

  private static long[] parse(String line) {
    byte[] bytes = line.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    return JobProcesses.parseStat(bytes, bytes.length);
  }

  private static Process sleeper(String token) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("sleep", "30");
    builder.environment().put(JobProcesses.TOKEN_VARIABLE, token);
    return execed(builder.start());
  }

  /**
   * {@code p} once its program's environment can be read: start() returns when the kernel has
   * switched the child to its new program's memory, before it has placed the environment there, and
   * until then /proc/PID/environ reads empty (a suite run found a just-started sleep carrying no
   * token). An agent at its end, or a dead run's leftover, is long past that point.
   */
  private static Process execed(Process p) throws Exception {
    Path environ = Path.of("/proc", Long.toString(p.pid()), "environ");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Files.readAllBytes(environ).length == 0) {
      assertTrue(p.isAlive() && System.nanoTime() < deadline, "the process's environment never appeared");
      Thread.sleep(1);
    }
    return p;
  }

  /**
   * {@code p}, started by {@code setsid}, once it leads its own session: the setsid program's
   * environment is readable before it has called setsid(2), and a scan then saw the agent in the
   * test JVM's session (a suite run under load failed "the agent's session" so). An agent at its
   * end is long past that point.
   */
  private static Process leading(Process p) throws Exception {
    Path stat = Path.of("/proc", Long.toString(p.pid()), "stat");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      byte[] bytes = Files.readAllBytes(stat);
      long[] fields = JobProcesses.parseStat(bytes, bytes.length);
      if (fields != null && fields[0] == p.pid()) {
        return p;
      }
      assertTrue(p.isAlive() && System.nanoTime() < deadline, "the process never led its own session");
      Thread.sleep(1);
    }
  }

  private static boolean found(JobProcesses processes, Process p) {
    return processes.find().stream().anyMatch(h -> h.pid() == p.pid());
  }
}
