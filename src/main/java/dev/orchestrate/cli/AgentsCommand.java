package dev.orchestrate.cli;

import dev.orchestrate.app.Agents;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.BudgetWindow;
import dev.orchestrate.state.AgentActivity;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate agents}: each agent profile, and {@code agents resume NAME}, which ends a profile's pause. */
@Command(name = "agents", mixinStandardHelpOptions = true,
    description = {"Show each agent profile (agent: and agents: of the config): its preset, how many of its agents "
        + "may run at once, what its jobs spent in the current UTC day and ISO week (every runner's), its pause "
        + "(a provider's usage or rate limit: kind, until when, limited attempts in a row, what the CLI said) and "
        + "the outcomes of its last " + Agents.RECENT_OUTCOMES + " jobs, newest first; then the project's budget "
        + "windows as stats shows them.",
        "Reads the config and the state (creates nothing without one); safe while a run is active."},
    subcommands = AgentsCommand.ResumeCommand.class)
final class AgentsCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Override
  public Integer call() {
    Config config = root.command().loadConfig(null);
    Agents.Overview overview = new Agents(root.command().backend(null, config), Clock.systemUTC()).overview(config);
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      Json.print(out, toJson(overview));
    } else {
      printText(out, overview, ZoneId.systemDefault());
    }
    return ExitCode.OK;
  }

  static Map<String, Object> toJson(Agents.Overview overview) {
    Map<String, Object> doc = Json.envelope("agents");
    doc.put("run_active", overview.runActive());
    doc.put("max_concurrent", overview.maxConcurrent());
    doc.put("windows", overview.windows().stream().map(StatsCommand::windowJson).toList());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Agents.Profile p : overview.profiles()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("profile", p.name());
      row.put("default", p.isDefault());
      row.put("in_config", p.config() != null);
      row.put("preset", p.config() == null ? null : p.config().preset().key());
      row.put("max_concurrent", p.config() == null || p.config().maxConcurrent() == 0 ? null
          : p.config().maxConcurrent());
      List<Map<String, Object>> spend = new ArrayList<>();
      p.spend().forEach((window, usage) -> {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("window", window.costKey().substring("budget.".length()));
        w.put("from", Json.timestamp(window.start(overview.now())));
        w.put("spend", UsageView.json(usage));
        spend.add(w);
      });
      row.put("spend", spend);
      row.put("pause", p.pause() == null ? null : pauseJson(p.pause(), overview.now()));
      row.put("recent_outcomes", p.recent().stream().map(AgentsCommand::outcomeJson).toList());
      rows.add(row);
    }
    doc.put("agents", rows);
    return doc;
  }

  private static Map<String, Object> pauseJson(AgentPauses.Pause pause, Instant now) {
    Map<String, Object> json = PauseView.json(pause);
    json.remove("profile"); // the row's
    json.put("active", pause.activeAt(now));
    return json;
  }

  private static Map<String, Object> outcomeJson(AgentActivity.Outcome o) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("job_id", o.jobId());
    row.put("item_id", o.itemId());
    row.put("phase", o.phase());
    row.put("outcome", o.outcome().key());
    row.put("ended_at", Json.timestamp(o.endedAt()));
    return row;
  }

  static void printText(PrintWriter out, Agents.Overview overview, ZoneId zone) {
    Table table = new Table("PROFILE", "PRESET", "MAX", "TODAY", "THIS WEEK", "PAUSE");
    for (Agents.Profile p : overview.profiles()) {
      AgentConfig c = p.config();
      table.add(p.name() + (p.isDefault() ? " (default)" : ""), c == null ? "(not in the config)" : c.preset().key(),
          c == null || c.maxConcurrent() == 0 ? "-" : Integer.toString(c.maxConcurrent()),
          spent(p.spend().get(BudgetWindow.DAY)), spent(p.spend().get(BudgetWindow.WEEK)),
          pauseCell(p.pause(), overview.now(), zone));
      if (p.pause() != null && !p.pause().message().isBlank()) {
        table.note(PauseView.kind(p.pause()) + ": " + PauseView.oneLine(p.pause().message()));
      }
      if (!p.recent().isEmpty()) {
        table.note("last " + p.recent().size() + " (newest first): "
            + String.join(", ", p.recent().stream().map(o -> o.outcome().key()).toList()));
      }
    }
    table.print(out);
    out.println("MAX: at most that many of the profile's agents at once (-: only execution.max_concurrent, "
        + overview.maxConcurrent() + "); TODAY and THIS WEEK in UTC, every runner's jobs");
    StatsCommand.printWindows(out, overview.windows());
    if (overview.runActive()) {
      out.println("A run is working on this state; 'orchestrate agents resume NAME' reaches it at its next round.");
    }
    out.flush();
  }

  /** "12,400 tokens, $0.4100", "12,400 tokens" (no cost reported), "-" (nothing reported). */
  private static String spent(Usage u) {
    if (u == null || u.isUnknown()) {
      return "-";
    }
    return UsageView.tokens(u.totalTokens()) + " tokens"
        + (u.costUsd() == null ? "" : ", " + UsageView.cost(u.costUsd()));
  }

  private static String pauseCell(AgentPauses.Pause p, Instant now, ZoneId zone) {
    if (p == null) {
      return "-";
    }
    String strikes = p.strikes() == 1 ? "1 strike" : p.strikes() + " strikes";
    if (p.activeAt(now)) {
      return PauseView.kind(p) + " " + PauseView.until(p, zone) + ", " + strikes;
    }
    // an ended pause stays recorded until the profile's next job works
    return "ended " + PauseView.at(p.end(), zone) + " (" + PauseView.kind(p) + ", " + strikes + ")";
  }

  /** {@code orchestrate agents resume NAME}: a person ends a profile's pause. */
  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = {"End the pause of the agent profile NAME now (a provider's limit paused it: see "
          + "'orchestrate agents'), as if its limit had ended: the next phase that wants the profile starts with "
          + "it. Use it when you know the limit is over (a plan upgraded, a key replaced) before the recorded "
          + "end.",
          "The pause is deleted from the state in one transaction, also while a run works on the state: the "
              + "run, and every runner of a shared PostgreSQL state, reads the pauses there, and starts the "
              + "profile's work again at its next round. A profile that is not paused is left as it is (exit 0). "
              + "If its limit still holds, its next job is limited again and the profile is paused anew."},
      footerHeading = "%nExit codes:%n",
      footer = {"  0    the pause is ended, or the profile was not paused (the output says which)",
          "  2    NAME is not a profile of the config, nor one the state has a pause",
          "       for (the error names the config's profiles; nothing changed)"})
  static final class ResumeCommand implements Callable<Integer> {
    @Mixin
    Root root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The agent profile (as 'orchestrate agents' lists "
        + "them: the agent: block is named by its preset, or agent for a plain command)")
    String name;

    @Option(names = "--json", description = "Print one JSON document (kind \"agents_resume\") on stdout")
    boolean json;

    @Override
    public Integer call() {
      Config config = root.command().loadConfig(null);
      // An unknown name (UnknownProfileException) is a usage error: ErrorHandler maps it to exit 2.
      Agents.Resumed resumed = new Agents(root.command().backend(null, config), Clock.systemUTC()).resume(config,
          name);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> doc = Json.envelope("agents_resume");
        doc.put("profile", resumed.profile());
        doc.put("resumed", resumed.cleared().isPresent());
        doc.put("cleared", resumed.cleared().map(p -> pauseJson(p, resumed.now())).orElse(null));
        doc.put("run_active", resumed.runActive());
        Json.print(out, doc);
      } else {
        out.println(text(resumed, ZoneId.systemDefault()));
        out.flush();
      }
      return ExitCode.OK;
    }

    static String text(Agents.Resumed r, ZoneId zone) {
      if (r.cleared().isEmpty()) {
        return r.profile() + " is not paused; nothing to resume";
      }
      AgentPauses.Pause p = r.cleared().get();
      String was = p.activeAt(r.now()) ? "its " + PauseView.kind(p) + " pause " + PauseView.until(p, zone)
          : "its " + PauseView.kind(p) + " pause, which had ended " + PauseView.at(p.end(), zone) + ",";
      return r.profile() + " resumed: " + was + " is cleared" + (r.runActive()
          ? "; the running run starts its work again at its next round" : "; the next run starts its work");
    }
  }
}
