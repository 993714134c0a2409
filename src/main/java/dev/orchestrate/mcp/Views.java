package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.app.JobDetails;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Progress;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.List;

/** The JSON of the values the tools return, with the keys {@code status --json} and {@code jobs --json} use. */
final class Views {
  /** The longest text of one field a tool returns (a description, a summary, a failure); longer ones are cut with a marker. */
  static final int TEXT_MAX_CHARS = 8_000;

  private Views() {
  }

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** An item's row: what {@code status} lists of it. */
  static ObjectNode item(ItemState item) {
    Progress p = item.progress();
    ObjectNode o = object();
    o.put("id", item.id());
    o.put("title", item.definition().title());
    o.put("status", item.status().key());
    o.put("phase", p.phase());
    o.put("attempts", p.attempts());
    o.put("pipeline", item.definition().pipeline());
    o.put("priority", item.definition().priority().key());
    strings(o, "depends_on", item.definition().dependsOn());
    strings(o, "tags", item.definition().tags());
    o.put("blocked_reason", text(p.blockedReason()));
    o.put("origin", item.origin());
    o.put("in_backlog", item.inBacklog());
    return o;
  }

  static void strings(ObjectNode o, String key, List<String> values) {
    values.forEach(o.putArray(key)::add);
  }

  /** A job as {@code jobs --json} shows it: its state (a blocked one failed), outcome, agent and usage. */
  static ObjectNode job(JobRecord job, JobDetails details) {
    OutcomeClass outcome = details.outcome(job);
    ObjectNode o = object();
    o.put("id", job.id());
    o.put("run_id", job.runId());
    o.put("item_id", job.itemId());
    o.put("phase", job.phase());
    o.put("attempt", job.attempt());
    o.put("state", JobDetails.state(job));
    o.put("result", job.result());
    o.put("outcome", outcome == null ? null : outcome.key());
    o.put("agent", details.agent(job));
    o.set("usage", usage(details.usage(job)));
    o.put("started_at", instant(job.startedAt()));
    o.put("ended_at", instant(job.endedAt()));
    if (job.exitCode() == null) {
      o.putNull("exit_code");
    } else {
      o.put("exit_code", job.exitCode());
    }
    o.put("reason", text(job.reason()));
    return o;
  }

  static ObjectNode usage(Usage usage) {
    ObjectNode o = object();
    if (usage == null || usage.isUnknown()) {
      o.putNull("tokens");
      o.putNull("cost_usd");
      return o;
    }
    Long tokens = usage.totalTokens();
    if (tokens == null) {
      o.putNull("tokens");
    } else {
      o.put("tokens", tokens);
    }
    if (usage.costUsd() == null) {
      o.putNull("cost_usd");
    } else {
      o.put("cost_usd", usage.costUsd());
    }
    return o;
  }

  static ObjectNode pause(AgentPauses.Pause pause, Instant now) {
    ObjectNode o = object();
    o.put("profile", pause.profile());
    o.put("kind", pause.kind().key());
    o.put("since", instant(pause.since()));
    o.put("until", instant(pause.end()));
    o.put("active", pause.activeAt(now));
    o.put("strikes", pause.strikes());
    o.put("message", text(pause.message()));
    return o;
  }

  static String instant(Instant at) {
    return at == null ? null : at.toString();
  }

  /** {@code text} cut to {@link #TEXT_MAX_CHARS} with a marker; null stays null. */
  static String text(String text) {
    return text == null ? null : SizeCap.cap(text, TEXT_MAX_CHARS);
  }
}
