package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.app.Agents;
import dev.orchestrate.app.Inbox;
import dev.orchestrate.app.Reviewing;
import dev.orchestrate.app.Unblocking;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Transitions;
import java.util.List;

/**
 * The tools that change the state, offered only with {@code --allow-actions}: each is the use case
 * of a command ({@code approve}, {@code reject}, {@code unblock}, {@code agents resume}), with its
 * promises (all or nothing; beside a run, decisions queued for it), and {@code add_item}, which
 * writes the new item to the state, never to the backlog file ({@link Inbox}).
 */
final class ActionTools {
  private final Project project;

  ActionTools(Project project) {
    this.project = project;
  }

  List<Tool> tools() {
    return List.of(
        new Tool("add_item", "Add an item", "Add a work item. It is written to orchestrate's state, not to the "
            + "backlog file (which is the user's and never rewritten): the next run takes it, status new, after "
            + "the items already there. Without an id, one is made from the title (mcp-<hash>).",
            new Schema().string("title", "What to do, in one line (at most 200 characters)", true)
                .string("description", "Free text for the agent (at most 8,000 characters)", false)
                .string("id", "A new id: letters, digits, '.', '_' and '-', at most 100 characters", false)
                .string("pipeline", "A pipeline of the config (default: its default pipeline)", false)
                .choice("priority", "Default medium", List.of("high", "medium", "low"))
                .strings("depends_on", "Ids of items (known to the state) that must be done first", false)
                .strings("tags", "Tags (letters, digits, '.', '_' and '-')", false),
            true, this::addItem),
        new Tool("approve", "Approve items", "Approve items awaiting review: each is done (with worktrees, its "
            + "branch integrated). All or nothing. Beside a running run the approvals are queued for it, which "
            + "applies them within seconds.", new Schema().strings("ids", "The ids of items awaiting review", true),
            true, this::approve),
        new Tool("reject", "Reject items", "Send items awaiting review back to a phase (default: their pipeline's "
            + "last) with notes for the agent's next prompt. All or nothing; queued beside a running run.",
            new Schema().strings("ids", "The ids of items awaiting review", true)
                .string("notes", "What the agent must change (at most " + Transitions.UNBLOCK_NOTES_MAX_CHARS
                    + " characters)", true)
                .string("phase", "The phase to go back to", false),
            true, this::reject),
        new Tool("unblock", "Unblock items", "Return blocked items to the status and phase each was blocked in, "
            + "with notes for the agent's next prompt. All or nothing. Refused while a run holds a local state.",
            new Schema().strings("ids", "The blocked items' ids", true)
                .string("notes", "What the agent needs to know to get on", true),
            true, this::unblock),
        new Tool("resume_agent", "Resume a paused agent profile", "Delete the pause a provider's usage limit put "
            + "on an agent profile, so that its jobs start again (a running run drops it at its next round).",
            new Schema().string("profile", "The agent profile (agents lists them)", true), true, this::resumeAgent));
  }

  private ObjectNode addItem(Arguments args) {
    Inbox.NewItem item = new Inbox.NewItem(args.optionalString("id"), args.string("title"),
        args.optionalString("description"), args.optionalString("pipeline"), args.optionalString("priority"),
        args.strings("depends_on"), args.strings("tags"));
    ItemState added = new Inbox(project.backend(), project.clock()).add(item, project.config().get(), Inbox.MCP);
    ObjectNode out = Views.object();
    out.set("item", Views.item(added));
    out.put("message", "added to the state; the next run takes it (a run already working: at its next reload of "
        + "the backlog)");
    return out;
  }

  private Reviewing.Project reviewProject() {
    Config config = project.config().get();
    return new Reviewing.Project(config, project.checkout().apply(config));
  }

  private ObjectNode approve(Arguments args) {
    List<String> ids = args.nonEmptyStrings("ids");
    List<Reviewing.Approved> approved = new Reviewing(project.backend(), project.clock()).approve(ids,
        reviewProject());
    ObjectNode out = Views.object();
    ArrayNode rows = out.putArray("items");
    for (Reviewing.Approved a : approved) {
      rows.addObject().put("id", a.item().id()).put("status", a.item().status().key())
          .put("integration", a.integration()).put("message", a.message());
    }
    return out;
  }

  private ObjectNode reject(Arguments args) {
    List<String> ids = args.nonEmptyStrings("ids");
    String notes = notes(args);
    List<Reviewing.Rejected> rejected = new Reviewing(project.backend(), project.clock()).reject(ids, notes,
        args.optionalString("phase"), reviewProject());
    ObjectNode out = Views.object();
    ArrayNode rows = out.putArray("items");
    for (Reviewing.Rejected r : rejected) {
      rows.addObject().put("id", r.item().id()).put("status", r.item().status().key())
          .put("phase", r.item().progress().phase()).put("outcome", r.outcome());
    }
    return out;
  }

  private ObjectNode unblock(Arguments args) {
    List<String> ids = args.nonEmptyStrings("ids");
    List<ItemState> items = new Unblocking(project.backend(), project.clock()).unblock(ids, notes(args));
    ObjectNode out = Views.object();
    ArrayNode rows = out.putArray("items");
    items.forEach(i -> rows.addObject().put("id", i.id()).put("status", i.status().key())
        .put("phase", i.progress().phase()));
    return out;
  }

  private static String notes(Arguments args) {
    String notes = args.string("notes");
    if (notes.isBlank()) {
      throw new ToolRefusal("notes must not be empty: tell the agent what to change");
    }
    return notes;
  }

  private ObjectNode resumeAgent(Arguments args) {
    Agents.Resumed resumed = new Agents(project.backend(), project.clock()).resume(project.config().get(),
        args.string("profile"));
    ObjectNode out = Views.object();
    out.put("profile", resumed.profile());
    out.put("was_paused", resumed.cleared().isPresent());
    resumed.cleared().ifPresentOrElse(p -> out.set("cleared", Views.pause(p, resumed.now())),
        () -> out.putNull("cleared"));
    out.put("run_active", resumed.runActive());
    return out;
  }
}
