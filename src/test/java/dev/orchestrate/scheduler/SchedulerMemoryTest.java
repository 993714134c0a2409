package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.memory.MemoryService;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Outcome and agent memories recorded by a real run, the boot context in prompts, and compact beside a run. */
class SchedulerMemoryTest {
  @TempDir
  Path dir;

  private Path stateDir() {
    return dir.resolve("state");
  }

  private RunReport run(Config config, List<BacklogItem> items) {
    try (StateStore store = TestStores.open(stateDir())) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC())
          .memory(new MemoryService(store.memory(), Clock.systemUTC(), config.memoryBootContextChars()))
          .build();
      return scheduler.run(10_000);
    }
  }

  private static Config onePhase(Path agent) {
    return config(agent(agent), 0, new Pipeline("feature", List.of(), List.of(phase("build"))));
  }

  @Test
  void a_run_records_outcomes_and_agent_memories_and_puts_them_in_later_prompts() throws Exception {
    Path agent = script(dir, "agent.sh", """
        cat > "prompt-$ORCHESTRATE_ITEM_ID.md"
        case "$ORCHESTRATE_ITEM_ID" in
          A) echo '{"result": "phase_complete", "summary": "built A", "memories": [
                {"kind": "semantic", "content": "We use Postgres 16", "tags": ["db"]}]}' > "$ORCHESTRATE_RESULT_FILE" ;;
          B) echo '{"result": "blocked", "context": "needs an API key"}' > "$ORCHESTRATE_RESULT_FILE" ;;
          *) exit 0 ;;
        esac
        """);
    RunReport report = run(onePhase(agent), List.of(item("A"), item("B"), item("C")));
    assertEquals(2, report.done());
    assertEquals(1, report.blocked());

    try (StateStore store = TestStores.open(stateDir())) {
      MemoryRepository memories = store.memory();
      List<String> ids = memories.listActive(null, null).stream().map(MemoryItem::id).toList();
      assertEquals(4, ids.size(), ids.toString());
      assertTrue(ids.containsAll(List.of("outcome:A:done", "outcome:B:blocked", "outcome:C:done")), ids.toString());
      assertEquals("Title of A — built A", memories.get("outcome:A:done").orElseThrow().content());
      assertEquals("Title of B — agent reported blocked in phase build: needs an API key",
          memories.get("outcome:B:blocked").orElseThrow().content());
      MemoryItem fact = memories.activeLoadBearing().get(0);
      assertEquals("We use Postgres 16", fact.content());
      assertEquals("A", fact.sourceItem());
    }
    String promptA = Files.readString(dir.resolve("prompt-A.md"));
    assertFalse(promptA.contains("## Project Memory"), "nothing to remember yet");
    String promptC = Files.readString(dir.resolve("prompt-C.md"));
    int item = promptC.indexOf("## Item");
    int memory = promptC.indexOf("## Project Memory");
    int task = promptC.indexOf("## Task");
    assertTrue(item < memory && memory < task, promptC);
    assertTrue(promptC.contains("- [semantic, db] We use Postgres 16"), promptC);
    assertTrue(promptC.contains("B blocked: Title of B — agent reported blocked in phase build: needs an API key"),
        promptC);
  }

  @Test
  void running_again_never_duplicates_an_outcome_memory() throws Exception {
    Path agent = script(dir, "agent.sh", "exit 0");
    run(onePhase(agent), List.of(item("A")));
    run(onePhase(agent), List.of(item("A"), item("B")));
    try (StateStore store = TestStores.open(stateDir())) {
      MemoryRepository memories = store.memory();
      assertEquals(List.of("outcome:A:done", "outcome:B:done"),
          memories.listActive(null, null).stream().map(MemoryItem::id).toList());
    }
  }

  @Test
  void without_project_memory_the_prompt_has_no_memory_section() throws Exception {
    Path agent = script(dir, "agent.sh", "cat > prompt.md");
    try (StateStore store = TestStores.open(stateDir())) {
      Scheduler.builder(store.items(), onePhase(agent), new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).build().run(10);
    }
    assertFalse(Files.readString(dir.resolve("prompt.md")).contains("## Project Memory"));
    try (StateStore store = TestStores.open(stateDir())) {
      MemoryRepository memories = store.memory();
      assertNull(memories.get("outcome:A:done").orElse(null));
    }
  }

  /** compact in a loop on its own connections while a run finishes 200 items: both succeed, counts add up. */
  @Test
  void compact_in_a_loop_beside_a_run_of_200_items_loses_nothing() throws Exception {
    Path agent = script(dir, "agent.sh", "exit 0");
    List<BacklogItem> items = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      items.add(item(String.format("W%03d", i)));
    }
    // the run's connection must exist (and migrate) before the compactor opens its own
    TestStores.open(stateDir()).close();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong deleted = new AtomicLong();
    AtomicLong passes = new AtomicLong();
    ExecutorService compactor = Executors.newSingleThreadExecutor();
    Future<?> loop = compactor.submit(() -> {
      while (running.get()) {
        try (StateStore store = TestStores.backend(stateDir()).open(StateStore.Mode.MAINTENANCE)) {
          MemoryCompaction m = store.memory().compact(5, Clock.systemUTC().instant());
          deleted.addAndGet(m.deleted());
          store.events().compact(10, false);
          passes.incrementAndGet();
        }
      }
      return null;
    });
    RunReport report;
    try {
      report = run(onePhase(agent), items);
    } finally {
      running.set(false);
      compactor.shutdown();
    }
    loop.get(60, TimeUnit.SECONDS); // rethrows any failure of a compaction pass
    assertTrue(compactor.awaitTermination(10, TimeUnit.SECONDS));

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(200, report.done());
    assertTrue(passes.get() > 1, "compaction ran during the run: " + passes.get());
    try (StateStore store = TestStores.backend(stateDir()).open(StateStore.Mode.MAINTENANCE)) {
      MemoryRepository memories = store.memory();
      EventLog log = store.events();
      long left = memories.listActive(null, null).size();
      assertEquals(200, deleted.get() + left, "every outcome memory was either deleted or is still there");
      deleted.addAndGet(memories.compact(5, Clock.systemUTC().instant()).deleted());
      assertEquals(5, memories.listActive(null, null).size());
      assertEquals(195, deleted.get());
      log.compact(10, false);
    }
    try (StateStore store = TestStores.open(stateDir())) {
      assertTrue(store.items().items().stream().allMatch(i -> i.status() == ItemStatus.DONE));
    }
  }
}
