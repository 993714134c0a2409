package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.app.StatusQuery;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Progress;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.util.List;
import java.util.Locale;

/** {@code show_item}'s answer: one item in full, as {@code status ID --json} shows it, each text capped. */
final class ItemDetailView {
  private ItemDetailView() {
  }

  static ObjectNode of(StatusQuery.ItemDetail d, int jobsShown) {
    ItemState item = d.item();
    Progress p = item.progress();
    ObjectNode o = Views.item(item);
    o.put("attempts", d.attempts());
    o.put("description", Views.text(item.definition().description()));
    Views.strings(o, "waiting_on", d.waitingOn());
    o.put("last_failure", Views.text(p.lastFailure()));
    o.put("unblock_notes", Views.text(p.unblockNotes()));
    o.put("held_by", d.heldBy());
    ArrayNode phases = o.putArray("phases");
    for (StatusQuery.PhaseView phase : d.phases()) {
      phases.addObject().put("name", phase.name()).put("attempts", phase.attempts())
          .put("last_result", phase.lastResult()).put("completed", phase.completed())
          .put("summary", Views.text(phase.summary()));
    }
    List<JobRecord> jobs = d.jobs();
    List<JobRecord> latest = jobs.subList(Math.max(0, jobs.size() - jobsShown), jobs.size());
    o.put("jobs_total", jobs.size());
    ArrayNode jobRows = o.putArray("jobs");
    latest.forEach(j -> jobRows.add(Views.job(j, d.details())));
    ArrayNode followUps = o.putArray("follow_ups");
    d.followUps().forEach(f -> followUps.addObject().put("id", f.id()).put("title", f.definition().title())
        .put("status", f.status().key()));
    o.put("context_summary", Views.text(d.contextSummary()));
    o.set("usage", Views.usage(d.usage()));
    WorkspaceRecord ws = d.workspace();
    if (ws == null) {
      o.putNull("workspace");
    } else {
      ObjectNode w = o.putObject("workspace");
      w.put("branch", ws.branch());
      w.put("base_branch", ws.baseBranch());
      w.put("head_commit", ws.headCommit());
      w.put("integration", ws.integration() == null ? null : ws.integration().name().toLowerCase(Locale.ROOT));
      w.put("note", Views.text(ws.note()));
    }
    return o;
  }
}
