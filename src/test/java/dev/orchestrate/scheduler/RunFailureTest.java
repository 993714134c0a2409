package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.AdditionalAnswers;

/** A run that fails stops its agents, and waits for them, before it gives up (issue 13.7). */
class RunFailureTest {

  @TempDir
  Path dir;

  @AfterEach
  void killLeftovers() throws Exception {
    for (String name : List.of("agent-A.pid", "child-A.pid")) {
      Path file = dir.resolve(name);
      if (Files.exists(file)) {
        ProcessHandle.of(Long.parseLong(Files.readString(file).strip())).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  @Test
  void a_store_failure_while_an_agent_runs_stops_that_agent_and_its_children_before_run_throws() throws Exception {
    // A ignores TERM and keeps a child; B waits until A runs, then ends, and recording its end fails.
    Path agent = script(dir, "agent.sh", """
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          trap '' TERM
          sleep 300 &
          echo $! > child-A.pid
          echo $$ > agent-A.pid
          while true; do sleep 1; done
        fi
        for i in $(seq 200); do [ -s agent-A.pid ] && [ -s child-A.pid ] && exit 0; sleep 0.05; done
        exit 0
        """);
    Pipeline one = new Pipeline("feature", List.of(), List.of(phase("work")));
    Config base = config(agent(agent), 0, one);
    Config config = base.withExecution(base.execution().withMaxWip(2).withMaxConcurrent(2));

    try (StateStore real = TestStores.open(dir.resolve("state"))) {
      StateRepository store = mock(StateRepository.class, AdditionalAnswers.delegatesTo(real.items()));
      doThrow(new IllegalStateException("[SQLITE_IOERR] disk I/O error"))
          .when(store).jobEnded(anyLong(), any(), any(), anyList(), any());
      Scheduler scheduler = Scheduler.builder(store, config, new Backlog(dir.resolve("backlog.yaml"),
          List.of(item("A"), item("B"))), dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()),
          Clock.systemUTC()).build();

      IllegalStateException e = assertThrows(IllegalStateException.class, () -> scheduler.run(10));

      assertEquals("[SQLITE_IOERR] disk I/O error", e.getMessage());
      for (String name : List.of("agent-A.pid", "child-A.pid")) {
        long pid = Long.parseLong(Files.readString(dir.resolve(name)).strip());
        assertFalse(running(pid), name + " still runs after run() threw");
      }
    }
  }

  private static boolean running(long pid) throws Exception {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    Path stat = Path.of("/proc/" + pid + "/stat");
    if (!Files.exists(stat)) {
      return true;
    }
    String text = Files.readString(stat);
    return text.charAt(text.lastIndexOf(')') + 2) != 'Z';
  }
}
