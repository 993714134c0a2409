package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.app.Agents;
import dev.orchestrate.app.JobsQuery;
import dev.orchestrate.app.LogsQuery;
import dev.orchestrate.app.StatsQuery;
import dev.orchestrate.app.StatusQuery;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.stats.StatsReport;
import dev.orchestrate.yaml.DidYouMean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tools that read: the use cases {@code status}, {@code jobs}, {@code logs}, {@code stats} and
 * {@code agents} call, rendered as JSON. Each answer is bounded: a page of items, a number of jobs,
 * the end of a log.
 */
final class ReadTools {
  static final int ITEMS_DEFAULT = 100;
  static final int ITEMS_MAX = 1_000;
  static final int JOBS_DEFAULT = 20;
  static final int JOBS_MAX = 200;
  static final int ITEM_JOBS_SHOWN = 20;
  static final int LOG_DEFAULT_BYTES = 32 * 1024;
  static final int LOG_MAX_BYTES = 256 * 1024;

  private final Project project;

  ReadTools(Project project) {
    this.project = project;
  }

  List<Tool> tools() {
    List<String> statuses = Arrays.stream(ItemStatus.values()).map(ItemStatus::key).toList();
    return List.of(
        new Tool("list_items", "List items", "The backlog's items as the state holds them, in backlog order: id, "
            + "title, status, phase, attempts, pipeline, priority, dependencies, blocked reason. At most 'limit' "
            + "(default " + ITEMS_DEFAULT + ") from 'offset'; 'total' counts every match.",
            new Schema().strings("status", "Only items of these statuses: " + String.join(", ", statuses), false)
                .integer("limit", "At most this many items", 1, ITEMS_MAX, ITEMS_DEFAULT)
                .integer("offset", "Skip this many matching items first", 0, Integer.MAX_VALUE, 0),
            false, this::listItems),
        new Tool("show_item", "Show an item", "One item in full: its fields, description, unmet dependencies, "
            + "the phases its jobs went through with the agent's last summary, its latest jobs, follow-ups, usage and "
            + "worktree.", new Schema().string("id", "The item's id", true), false, this::showItem),
        new Tool("jobs", "Recent jobs", "The newest jobs (agent runs), newest first, with their outcome, and the "
            + "current or last run.",
            new Schema().integer("limit", "At most this many jobs", 1, JOBS_MAX,
                JOBS_DEFAULT),
            false, this::jobs),
        new Tool("logs", "A job's log", "The end of one job's output.log (the agent's stdout and stderr, as "
            + "written: a preset's JSON event lines included): by default the item's latest job, else its latest of "
            + "'phase' and 'attempt'. At most 'max_bytes' of the end (default " + LOG_DEFAULT_BYTES + ").",
            new Schema().string("id", "The item's id", true).string("phase", "The latest job of this phase", false)
                .integer("attempt", "The job of this attempt", 1, 1_000_000, null)
                .integer("max_bytes", "At most this many bytes of the log's end", 1, LOG_MAX_BYTES,
                    LOG_DEFAULT_BYTES),
            false, this::logs),
        new Tool("stats", "Growth and spending", "Every bounded structure's size against its limit, the overall "
            + "pressure and status, warnings, what the jobs spent, and the agent profiles a provider's limit paused.",
            new Schema(), false, this::stats),
        new Tool("agents", "Agent profiles", "Each agent profile of the config: its preset, concurrency, spend today "
            + "and this week, its pause (a provider's usage limit) and last outcomes; whether a run is active.",
            new Schema(), false, this::agents));
  }

  private StateBackend backend() {
    return project.backend();
  }

  private ObjectNode listItems(Arguments args) {
    Set<ItemStatus> wanted = new HashSet<>();
    for (String s : args.strings("status")) {
      wanted.add(ItemStatus.parse(s).orElseThrow(() -> new ToolRefusal("unknown status '" + s + "': "
          + String.join(", ", Arrays.stream(ItemStatus.values()).map(ItemStatus::key).toList()))));
    }
    int limit = args.integer("limit", ITEMS_DEFAULT, 1, ITEMS_MAX);
    int offset = args.integer("offset", 0, 0, Integer.MAX_VALUE);
    ObjectNode out = Views.object();
    ArrayNode items = Views.object().arrayNode();
    long[] total = {0};
    // Streamed a page at a time (issue 33): a million items hold one page and the answer's rows.
    try (StatusQuery.Listing listing = StatusQuery.listing(backend())) {
      listing.forEach(row -> {
        if (wanted.isEmpty() || wanted.contains(row.item().status())) {
          if (total[0] >= offset && items.size() < limit) {
            ObjectNode o = Views.item(row.item());
            Views.strings(o, "waiting_on", row.waitingOn());
            o.put("attempts", row.attempts());
            o.set("usage", Views.usage(row.usage()));
            items.add(o);
          }
          total[0]++;
        }
      });
    }
    out.put("total", total[0]);
    out.put("offset", offset);
    out.put("more", total[0] > offset + items.size());
    out.set("items", items);
    return out;
  }

  private ObjectNode showItem(Arguments args) {
    String id = args.string("id");
    StatusQuery.Lookup found = StatusQuery.item(backend(), id);
    if (found instanceof StatusQuery.NoState) {
      throw new ToolRefusal("unknown item '" + id + "': there is no state yet (no run has started)");
    }
    if (found instanceof StatusQuery.Unknown unknown) {
      throw new ToolRefusal(unknownItem(id, unknown.known()));
    }
    return ItemDetailView.of(((StatusQuery.Found) found).detail(), ITEM_JOBS_SHOWN);
  }

  static String unknownItem(String id, List<String> known) {
    return "unknown item '" + id + "'" + DidYouMean.closest(id, known).map(s -> "; did you mean '" + s + "'?")
        .orElse("") + " (list_items lists them)";
  }

  private ObjectNode jobs(Arguments args) {
    JobsQuery.Jobs jobs = JobsQuery.recent(backend(), args.integer("limit", JOBS_DEFAULT, 1, JOBS_MAX));
    ObjectNode out = Views.object();
    ArrayNode rows = out.putArray("jobs");
    jobs.jobs().forEach(j -> rows.add(Views.job(j, jobs.details())));
    jobs.run().ifPresentOrElse(r -> {
      ObjectNode run = out.putObject("run");
      run.put("id", r.run().id());
      run.put("state", r.state());
      run.put("started_at", Views.instant(r.run().startedAt()));
      run.put("ended_at", Views.instant(r.run().endedAt()));
      run.put("halt_reason", r.run().haltReason());
    }, () -> out.putNull("run"));
    return out;
  }

  private ObjectNode logs(Arguments args) {
    String id = args.string("id");
    String phase = args.optionalString("phase");
    Integer attempt = args.optionalInteger("attempt", 1, 1_000_000);
    int maxBytes = args.integer("max_bytes", LOG_DEFAULT_BYTES, 1, LOG_MAX_BYTES);
    LogsQuery.Lookup lookup = LogsQuery.job(backend(), id, phase, attempt, false);
    if (lookup instanceof LogsQuery.NoState) {
      throw new ToolRefusal("unknown item '" + id + "': there is no state yet (no run has started)");
    }
    if (lookup instanceof LogsQuery.UnknownItem unknown) {
      throw new ToolRefusal(unknownItem(id, unknown.known()));
    }
    if (lookup instanceof LogsQuery.NoJobs) {
      throw new ToolRefusal("item " + id + " has no jobs (none ran yet, or retention deleted them)");
    }
    if (lookup instanceof LogsQuery.NoMatch none) {
      throw new ToolRefusal("item " + id + " has no job" + (none.phase() == null ? "" : " in phase " + none.phase())
          + (attempt == null ? "" : ", attempt " + attempt) + "; its jobs: " + String.join(", ",
              none.jobs().stream().map(j -> j.phase() + " attempt " + j.attempt()).distinct().toList()));
    }
    LogsQuery.Found job = (LogsQuery.Found) lookup;
    JobRecord record = job.job();
    if (record.logPath() == null) {
      throw new ToolRefusal("job " + record.id() + " of " + id + " has no log");
    }
    LogTail tail;
    try {
      tail = LogTail.read(backend().directory().root().resolve(record.logPath()), maxBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ObjectNode out = Views.object();
    out.put("job_id", record.id());
    out.put("item_id", record.itemId());
    out.put("phase", record.phase());
    out.put("attempt", record.attempt());
    out.put("state", record.state().key());
    out.put("outcome", job.outcome() == null ? null : job.outcome().key());
    out.put("running", record.state() == JobState.RUNNING && LogsQuery.running(backend(), record.id()));
    out.put("log_bytes", tail.sizeBytes());
    out.put("cut", tail.cut());
    out.put("log", tail.text());
    return out;
  }

  private ObjectNode stats(Arguments args) {
    Instant now = project.clock().instant();
    StatsQuery.Stats stats = StatsQuery.read(backend(), project.budget().get(), now, false);
    StatsReport report = StatsReport.of(stats.input());
    ObjectNode out = Views.object();
    out.put("status", report.status().key());
    out.put("pressure", report.pressure().key());
    ArrayNode rows = out.putArray("structures");
    for (StatsReport.Row row : report.structures()) {
      ObjectNode o = rows.addObject();
      o.put("name", row.name());
      o.put("rows", row.figures().rowsNow());
      o.put("prunable_rows", row.figures().prunableRows());
      if (row.figures().maxRows() == null) {
        o.putNull("max_rows");
      } else {
        o.put("max_rows", row.figures().maxRows());
      }
      if (row.utilisation() == null || row.utilisation().isInfinite()) {
        o.putNull("utilisation");
      } else {
        o.put("utilisation", row.utilisation());
      }
      o.put("status", row.status().key());
      o.put("truncated_writes", row.figures().truncatedWrites());
    }
    ArrayNode warnings = out.putArray("warnings");
    report.warnings().forEach(w -> warnings.addObject().put("structure", w.structure()).put("level", w.level().key())
        .put("message", w.message()));
    out.set("lifetime_usage", Views.usage(stats.spending().lifetime()));
    out.put("jobs_reported", stats.spending().jobsReported());
    ArrayNode pauses = out.putArray("pauses");
    stats.pauses().forEach(p -> pauses.add(Views.pause(p, now)));
    return out;
  }

  private ObjectNode agents(Arguments args) {
    Agents.Overview overview = new Agents(backend(), project.clock()).overview(project.config().get());
    ObjectNode out = Views.object();
    out.put("run_active", overview.runActive());
    out.put("max_concurrent", overview.maxConcurrent());
    ArrayNode profiles = out.putArray("profiles");
    for (Agents.Profile p : overview.profiles()) {
      ObjectNode o = profiles.addObject();
      o.put("profile", p.name());
      o.put("default", p.isDefault());
      o.put("preset", p.config() == null ? null : p.config().preset().key());
      if (p.config() == null || p.config().maxConcurrent() == 0) {
        o.putNull("max_concurrent");
      } else {
        o.put("max_concurrent", p.config().maxConcurrent());
      }
      ObjectNode spend = o.putObject("spend");
      // The windows by their names ("day", "week"), the key read as any object: the scheduler is not ours to name.
      for (java.util.Map.Entry<?, dev.orchestrate.outcome.Usage> e : p.spend().entrySet()) {
        spend.set(String.valueOf(e.getKey()).toLowerCase(java.util.Locale.ROOT), Views.usage(e.getValue()));
      }
      if (p.pause() == null) {
        o.putNull("pause");
      } else {
        o.set("pause", Views.pause(p.pause(), overview.now()));
      }
      ArrayNode recent = o.putArray("recent_outcomes");
      p.recent().forEach(r -> recent.addObject().put("job_id", r.jobId()).put("item_id", r.itemId())
          .put("phase", r.phase()).put("outcome", r.outcome().key()).put("ended_at", Views.instant(r.endedAt())));
    }
    return out;
  }
}
