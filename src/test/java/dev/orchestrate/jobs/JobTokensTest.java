package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
    Process p = agent.start();
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
    Process p = agent.start();
    try {
      assertTrue(found(JobProcesses.ofState(jobs, null), p));
      assertFalse(found(JobProcesses.ofState(dir.resolve("other/jobs"), null), p), "another state's run");
      assertFalse(found(JobProcesses.ofState(jobs, "runner-a"), p), "a runner of a shared state");
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static boolean found(JobProcesses processes, Process p) {
    return processes.find().stream().anyMatch(h -> h.pid() == p.pid());
  }
}
