package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ContextConfig;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.SummarizerConfig;
import dev.orchestrate.context.ContextHistory;
import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.context.PromptBuilder;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.context.Turn;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Turn history end to end: a real scheduler, store and bash agent over a pipeline of 10 phases, one
 * of which fails once, so the item gets 11 prompts. What the run left is read back through the port.
 */
class SchedulerContextTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(dev.orchestrate.context.SlidingWindowSummarizer.class);

  /** Saves each prompt as prompts/N.md; p3 fails its first attempt; the others report a decision. */
  private static final String AGENT = """
      mkdir -p prompts
      n=$(( $(ls prompts | wc -l) + 1 ))
      cat > "prompts/$n.md"
      if [ "$ORCHESTRATE_PHASE" = p3 ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
        echo "error: src/$ORCHESTRATE_PHASE/Main.java:12: cannot find symbol" >&2
        exit 1
      fi
      echo "Sounds good."
      echo "decided: keep the code of $ORCHESTRATE_PHASE in src/$ORCHESTRATE_PHASE/Main.java"
      """;
  private static final Pattern TURN = Pattern.compile("\n### Turn (\\d+) · ");

  @TempDir
  Path dir;

  private final List<String> heard = new ArrayList<>();

  private Config config(SummarizerConfig summarizer) {
    Pipeline tenPhases = new Pipeline("feature", List.of(),
        IntStream.rangeClosed(1, 10).mapToObj(i -> phase("p" + i)).toList());
    Config base = dev.orchestrate.testing.TestAgents.config(agent(script(dir, "agent.sh", AGENT)), 2, tenPhases);
    return ConfigWithers.withContext(base, ConfigWithers.withSummarizer(ContextConfig.defaults(), summarizer));
  }

  private RunReport run(Config config) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      SummarizationListener listener = new SummarizationListener() {
        @Override
        public void summarizationComplete(String itemId, int condensed, int tokens, boolean degraded) {
          heard.add("complete " + condensed + (degraded ? " degraded" : ""));
        }

        @Override
        public void summarizationFailed(String itemId, String error) {
          heard.add("failed");
        }
      };
      Backlog backlog = new Backlog(dir.resolve("backlog.yaml"), List.of(item("A")));
      ContextHistory history = ContextHistory.create(store.turns(), config.context(), backlog.directory(),
          Clock.systemUTC(), listener, name -> null, UnaryOperator.identity());
      Scheduler scheduler = Scheduler.builder(store.items(), config, backlog, dir.resolve("state/jobs"),
          new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).history(history).build();
      return scheduler.run(100);
    }
  }

  private String prompt(int n) throws IOException {
    return Files.readString(dir.resolve("prompts/" + n + ".md"));
  }

  private static List<Integer> turnsIn(String prompt) {
    List<Integer> seqs = new ArrayList<>();
    Matcher m = TURN.matcher(prompt);
    while (m.find()) {
      seqs.add(Integer.parseInt(m.group(1)));
    }
    return seqs;
  }

  /** What {@code query} reads from the state the run left. */
  private <T> T stored(Function<StateStore, T> query) {
    return TestStores.read(dir.resolve("state"), query);
  }

  /** Every turn stored, of every item. */
  private List<Turn> turns() {
    return stored(TestStores::turns);
  }

  /** The events of {@code kind}, oldest first. */
  private List<Event> events(String kind) {
    return stored(
        store -> TestStores.events(store).stream().map(EventLog.Entry::event).filter(e -> e.kind().equals(kind))
            .toList());
  }

  /** The rolling summary of every item that has one. */
  private List<ContextSummary> summaries() {
    return stored(store -> store.itemIds().stream().sorted().map(id -> store.turns().summary(id))
        .flatMap(Optional::stream).toList());
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  void the_11th_prompt_has_the_summary_block_before_exactly_window_size_verbatim_turns() throws Exception {
    RunReport report = run(config(SummarizerConfig.defaults()));

    assertEquals(1, report.done());
    assertEquals(11, report.phasesRun());
    String eleventh = prompt(11);
    assertTrue(eleventh.contains("# orchestrate: A / p10"), eleventh);
    int open = eleventh.indexOf(PromptBuilder.SUMMARY_OPEN);
    int close = eleventh.indexOf(PromptBuilder.SUMMARY_CLOSE);
    assertTrue(open > eleventh.indexOf("## Item") && close > open, eleventh);
    assertEquals(List.of(16, 17, 18, 19, 20), turnsIn(eleventh));
    int firstTurn = eleventh.indexOf("\n### Turn 16 · ");
    assertTrue(close < firstTurn, "the summary comes first:\n" + eleventh);
    assertTrue(eleventh.indexOf("## Previous Phase Summary") > eleventh.indexOf("\n### Turn 20 · "), eleventh);
    String summary = eleventh.substring(open, close);
    assertTrue(summary.contains("src/p1/Main.java"), summary);
    assertTrue(summary.contains("error: src/p3/Main.java:12: cannot find symbol"), summary);
    assertFalse(summary.contains("Sounds good."), summary);

    // the user turn is the phase task; the assistant turn is what the agent answered
    assertTrue(eleventh.contains("### Turn 19 · user · p9 attempt 1\n\nDo p9.\n"), eleventh);
    assertTrue(eleventh.contains("### Turn 20 · assistant · p9 attempt 1\n\nresult: phase_complete\nsummary: "),
        eleventh);

    assertTrue(turnsIn(prompt(1)).isEmpty());
    assertFalse(prompt(3).contains(PromptBuilder.SUMMARY_OPEN), "4 turns fit in the window");
    assertEquals(22, stored(store -> store.turns().turns("A", 0, Long.MAX_VALUE)).size());
    assertEquals(11, turns().stream().filter(t -> t.role() == Turn.Role.USER).count());
    ContextSummary ofA = stored(store -> store.turns().summary("A")).orElseThrow();
    assertEquals("1|15|15|builtin|false",
        ofA.fromSeq() + "|" + ofA.toSeq() + "|" + ofA.sourceCount() + "|" + ofA.generator() + "|" + ofA.degraded());
    // prompts 4..11 each found turns that had aged out of the window (2 per attempt, 1 on the 4th)
    assertEquals(8, events("summarization:complete").size());
    assertEquals(0, events("summarization:failed").size());
    assertEquals(8, heard.size());
    assertEquals("complete 1", heard.get(0));
  }

  @Test
  void an_openai_summarizer_at_a_closed_port_completes_every_phase_with_degraded_summaries() throws Exception {
    int port = closedPort();
    long start = System.nanoTime();
    RunReport report = run(config(SummarizerConfig.openai("http://127.0.0.1:" + port + "/v1", "m", null,
        Duration.ofSeconds(2), SummarizerConfig.Fallback.BUILTIN, null)));

    assertEquals(1, report.done());
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(11, report.phasesRun());
    assertTrue(System.nanoTime() - start < 30_000_000_000L);
    String eleventh = prompt(11);
    assertTrue(eleventh.indexOf(PromptBuilder.SUMMARY_CLOSE) < eleventh.indexOf("\n### Turn 16 · "), eleventh);
    assertEquals(List.of(16, 17, 18, 19, 20), turnsIn(eleventh));
    assertEquals(List.of("15|builtin|true"),
        summaries().stream().map(s -> s.toSeq() + "|" + s.generator() + "|" + s.degraded()).toList());
    List<Event> failed = events("summarization:failed");
    assertEquals(8, failed.size());
    assertEquals(8, events("summarization:complete").stream().filter(e -> Boolean.TRUE.equals(e.payload()
        .get("degraded"))).count());
    String error = String.valueOf(failed.get(0).payload().get("error"));
    assertTrue(error.contains("cannot connect to http://127.0.0.1:" + port), error);
    assertEquals(22, turns().size());
    assertEquals("failed", heard.get(0));
    assertEquals("complete 1 degraded", heard.get(1));
    assertEquals(8, logs.warnings().size(), logs.warnings().toString());
    assertTrue(logs.warnings().stream().allMatch(w -> w.startsWith("summarization of item A failed (openai "
        + "summarizer: cannot connect to http://127.0.0.1:" + port) && w.endsWith("using the builtin summarizer")),
        logs.warnings().toString());
  }

  @Test
  void with_fallback_none_a_failing_summarizer_leaves_every_turn_verbatim() throws Exception {
    RunReport report = run(config(SummarizerConfig.openai("http://127.0.0.1:" + closedPort() + "/v1", "m", null,
        Duration.ofSeconds(2), SummarizerConfig.Fallback.NONE, null)));

    assertEquals(1, report.done());
    String eleventh = prompt(11);
    assertFalse(eleventh.contains(PromptBuilder.SUMMARY_OPEN), eleventh);
    assertEquals(IntStream.rangeClosed(1, 20).boxed().toList(), turnsIn(eleventh));
    assertEquals(List.of(), summaries());
    assertEquals(22, turns().size());
    assertFalse(logs.warnings().isEmpty());
    assertTrue(logs.warnings().stream().allMatch(w -> w.endsWith("keeping every turn verbatim")),
        logs.warnings().toString());
  }

  @Test
  void the_user_turn_is_the_phase_task_as_given() {
    PhaseDef p = phase("p1");
    assertEquals("Do p1.\n", PromptBuilder.task(p));
    assertEquals("Follow the workflow in `/w/design.md`.\n",
        PromptBuilder.task(new PhaseDef("design", null, "/w/design.md", false)));
  }

  @Test
  void a_stop_during_a_slow_summarization_ends_the_run_at_once_and_spawns_nothing() throws Exception {
    Path started = dir.resolve("summarizer-started");
    Config config = config(SummarizerConfig.command(List.of("bash", "-c", "touch '" + started + "'; sleep 60"),
        Duration.ofSeconds(60), SummarizerConfig.Fallback.BUILTIN, null));
    config = ConfigWithers.withContext(config, ConfigWithers.withWindowSize(config.context(), 1));
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Backlog backlog = new Backlog(dir.resolve("backlog.yaml"), List.of(item("A")));
      Scheduler scheduler = Scheduler.builder(store.items(), config, backlog, dir.resolve("state/jobs"),
          new AgentRunner(Clock.systemUTC()), Clock.systemUTC())
          .history(ContextHistory.create(store.turns(), config.context(), backlog.directory(),
              Clock.systemUTC(), SummarizationListener.NONE, name -> null, UnaryOperator.identity()))
          .build();
      Thread stopper = new Thread(() -> {
        try {
          while (!Files.exists(started)) {
            Thread.sleep(20);
          }
          scheduler.requestStop();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      stopper.start();
      long start = System.nanoTime();
      RunReport report = scheduler.run(100);
      long millis = (System.nanoTime() - start) / 1_000_000;
      stopper.join(5_000);

      assertEquals(HaltReason.INTERRUPTED, report.haltReason());
      assertTrue(millis < 15_000, "took " + millis + " ms");
      assertEquals(1, report.phasesRun(), "the second phase was never spawned");
      assertFalse(Thread.currentThread().isInterrupted());
    }
    assertEquals(2, turns().size());
    assertEquals(1, events("summarization:failed").size());
    assertEquals(List.of(true), summaries().stream().map(ContextSummary::degraded).toList());
    assertEquals(List.of("summarization of item A failed (command summarizer: interrupted); using the builtin "
        + "summarizer"), logs.warnings());
  }
}
