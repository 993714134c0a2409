package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.withSettings;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.Fixtures;
import dev.orchestrate.testing.TestStores;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mockito.stubbing.Answer;

/**
 * Fault injection into the state repository during a real run (real SQLite file, real agent
 * processes): the Nth write fails as a failed commit does (nothing of it is written). Whatever
 * was committed before stays, and the next run completes every item without repeating a phase
 * whose end was recorded. A Mockito answer is the right tool here: it wraps the real repository
 * and fails exactly one call, which a hand-written fake of the whole interface would not do more
 * clearly.
 */
class StoreFaultInjectionTest {
  /** The repository methods that write; every other one only reads. */
  private static final Set<String> WRITES = Set.of("sync", "syncAndRead", "apply", "applyIf", "jobStarted", "jobEnded",
      "interruptRunningJobs", "runStarted", "runEnded", "runSpend");
  private static final List<String> PHASES = List.of("scope", "design", "build", "review");
  private static final List<String> ITEMS = List.of("A", "B");

  @TempDir
  Path dir;

  /**
   * A clean run of this backlog writes, in order: runStarted, interruptRunningJobs, syncAndRead, apply,
   * then per phase jobStarted, jobEnded (which writes the job's log size too, with an apply when an
   * item moves on), and finally runSpend, runEnded (25 writes). The cases fail one of each kind, at the start, in the
   * middle of an item, between items and at the very end.
   */
  @ParameterizedTest(name = "write {0} fails")
  @ValueSource(ints = {1, 3, 4, 5, 6, 7, 10, 14, 25})
  void a_failed_write_loses_nothing_committed_and_the_next_run_finishes_without_repeating_a_recorded_phase(int n)
      throws Exception {
    Path log = dir.resolve("phases.log");
    Path agent = script(dir, "agent.sh", "echo \"$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE\" >> '" + log + "'");
    Config base = config(agent(agent), 0, Fixtures.feature());
    Config config = base.withExecution(base.execution().withMaxWip(1).withMaxConcurrent(1));
    Path stateDir = dir.resolve("state");
    Backlog backlog = new Backlog(dir.resolve("backlog.yaml"), ITEMS.stream().map(id -> item(id)).toList());

    List<String> writes = new ArrayList<>();
    Set<String> recordedBefore;
    try (StateStore state = TestStores.open(stateDir)) {
      StateRepository real = state.items();
      StateRepository failing = mock(StateRepository.class,
          withSettings().defaultAnswer(failingWrite(real, n, writes)));
      RuntimeException e = assertThrows(RuntimeException.class, () -> scheduler(failing, config, backlog).run(100));
      assertEquals("injected: write " + n + " fails", e.getMessage(), "writes before: " + writes);
      recordedBefore = real.recentJobs(100).stream().filter(j -> j.state() == JobState.COMPLETED)
          .map(j -> j.itemId() + " " + j.phase()).collect(Collectors.toSet());
    }

    try (StateStore again = TestStores.open(stateDir)) {
      scheduler(again.items(), config, backlog).run(100);
      for (ItemState item : again.items().items()) {
        assertEquals(ItemStatus.DONE, item.progress().status(), item.definition().id() + " after " + writes);
      }
    }

    Map<String, Long> runs = Files.readAllLines(log).stream()
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    for (String id : ITEMS) {
      for (String phase : PHASES) {
        assertTrue(runs.containsKey(id + " " + phase), id + " " + phase + " never ran: " + runs);
      }
    }
    for (String phase : recordedBefore) {
      assertEquals(1L, runs.get(phase), phase + " was recorded complete before the failure and ran again");
    }
    long repeats = runs.values().stream().mapToLong(c -> c - 1).sum();
    assertTrue(repeats <= 1, "only the phase whose end was not recorded may run twice: " + runs);
  }

  /** Delegates to {@code real}, except that the {@code n}th write throws without reaching it. */
  private static Answer<Object> failingWrite(StateRepository real, int n, List<String> writes) {
    return invocation -> {
      String name = invocation.getMethod().getName();
      if (WRITES.contains(name)) {
        writes.add(name);
        if (writes.size() == n) {
          throw new IllegalStateException("injected: write " + n + " fails");
        }
      }
      try {
        return invocation.getMethod().invoke(real, invocation.getArguments());
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
  }

  private Scheduler scheduler(StateRepository store, Config config, Backlog backlog) {
    return Scheduler.builder(store, config, backlog, dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()),
        Clock.systemUTC()).build();
  }
}
