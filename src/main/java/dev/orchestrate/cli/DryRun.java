package dev.orchestrate.cli;

import dev.orchestrate.app.PlanInput;
import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.jobs.Preflight;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.ItemFilterException;
import dev.orchestrate.scheduler.Plan;
import dev.orchestrate.state.StateBackend;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code run --dry-run}: the plan of a run, computed from the state and the backlog. Nothing is
 * written: the state is read read-only, never created, and never migrated. A database of an older
 * schema is read as it is (its items are all the plan needs) with a note that a run upgrades it.
 */
final class DryRun {
  private DryRun() {
  }

  static int print(PrintWriter out, PrintWriter err, boolean quiet, boolean json, StateBackend backend, Config config,
      Backlog backlog, ItemFilter filter, int phaseCap) {
    return print(out, err, quiet, json, backend, config, backlog, filter, phaseCap, Optional.empty());
  }

  /** {@code agent}: the program the preflight check resolved (empty when no agent is configured). */
  static int print(PrintWriter out, PrintWriter err, boolean quiet, boolean json, StateBackend backend, Config config,
      Backlog backlog, ItemFilter filter, int phaseCap, Optional<Preflight.Found> agent) {
    PlanInput.Stored stored = PlanInput.read(backend);
    if (stored.olderSchema() && !quiet) {
      err.println("orchestrate: note: the state database has schema version " + stored.schemaVersion()
          + ", older than this orchestrate's " + stored.latestSchemaVersion()
          + "; the plan reads it as it is and changes nothing, a run upgrades it first");
      err.flush();
    }
    List<ItemState> items = Plan.preview(stored.items(), backlog.items());
    Set<String> known = new HashSet<>();
    items.forEach(i -> known.add(i.id()));
    try {
      filter.checkTargets(known);
    } catch (ItemFilterException e) {
      throw Flags.filterError(e);
    }
    Plan plan = Plan.simulate(items, config.pipelines(), config.execution().maxWip(),
        config.execution().maxConcurrent(), filter, phaseCap);
    if (json) {
      Map<String, Object> doc = toJson(plan, config, phaseCap);
      doc.put("agent", agentJson(config, agent));
      Json.print(out, doc);
    } else {
      printText(out, plan, config, phaseCap);
      out.println("  agent: " + agent.map(a -> TerminalText.safe(a.program() + " (" + config.agent().preset().key()
          + ") resolves to " + a.resolved() + (a.script() == null ? "" : ", running " + a.script())
          + (config.execution().workspace().worktrees() && (a.script() != null || a.program().contains("/"))
              ? " (from your checkout, also for agents in worktrees)" : "")))
          .orElse("none configured (set agent.preset or agent.command before a run)"));
      out.flush();
    }
    return ExitCode.OK;
  }

  private static Map<String, Object> agentJson(Config config, Optional<Preflight.Found> agent) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("preset", config.agent().preset().key());
    row.put("program", agent.map(Preflight.Found::program).orElse(null));
    row.put("resolved", agent.map(a -> a.resolved().toString()).orElse(null));
    row.put("script", agent.map(Preflight.Found::script).map(Path::toString).orElse(null));
    return row;
  }

  private static Map<String, Object> toJson(Plan plan, Config config, int phaseCap) {
    Map<String, Object> doc = Json.envelope("plan");
    doc.put("max_wip", config.execution().maxWip());
    doc.put("max_concurrent", config.execution().maxConcurrent());
    doc.put("phase_cap", phaseCap);
    doc.put("capped", plan.capped());
    List<Map<String, Object>> steps = new ArrayList<>();
    for (Plan.PlanStep step : plan.steps()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("wave", step.wave());
      row.put("item", step.itemId());
      row.put("phase", step.phase());
      row.put("pre_phase", step.prePhase());
      row.put("destructive", step.destructive());
      steps.add(row);
    }
    doc.put("steps", steps);
    doc.put("unfinished", plan.untouched());
    return doc;
  }

  private static void printText(PrintWriter out, Plan plan, Config config, int phaseCap) {
    out.println("plan (dry run: nothing is started or written), assuming every phase succeeds at once; max_wip "
        + config.execution().maxWip() + ", max_concurrent " + config.execution().maxConcurrent()
        + ", phase cap " + phaseCap + ":");
    int wave = 0;
    StringBuilder line = new StringBuilder();
    for (Plan.PlanStep step : plan.steps()) {
      if (step.wave() != wave) {
        if (line.length() > 0) {
          out.println(TerminalText.safe(line.toString()));
        }
        wave = step.wave();
        line.setLength(0);
        line.append(String.format("  %3d  ", wave));
      } else {
        line.append(", ");
      }
      line.append(step.itemId()).append(' ').append(step.phase()).append(step.destructive() ? " (alone)" : "");
    }
    if (line.length() > 0) {
      out.println(TerminalText.safe(line.toString()));
    }
    if (plan.steps().isEmpty()) {
      out.println("  nothing to run");
    }
    out.println("  " + plan.steps().size() + (plan.steps().size() == 1 ? " phase" : " phases")
        + (plan.capped() ? "; the phase cap stops the run here" : ""));
    if (!plan.untouched().isEmpty()) {
      out.println("  left unfinished (filtered out, held by a blocked dependency, or capped): "
          + TerminalText.safe(String.join(", ", plan.untouched())));
    }
    out.flush();
  }
}
