package dev.orchestrate.item;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.limits.Cuts;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentOutcome;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A new item made from a follow-up an agent reported. It lives only in the state database (the
 * user's backlog file is never written) and remembers its origin, {@code ITEM/phase}.
 *
 * @param truncatedValues how many of title and description were cut to their cap here; the store
 *                        counts adding the item as one truncated write of {@code items} when not 0
 */
public record FollowUpItem(BacklogItem definition, String origin, int truncatedValues) {
  public static final int TITLE_MAX_CHARS = 200;
  public static final int DESCRIPTION_MAX_CHARS = 8_000;

  public FollowUpItem {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(origin, "origin");
    if (truncatedValues < 0) {
      throw new IllegalArgumentException("truncatedValues must not be negative, got " + truncatedValues);
    }
  }

  public FollowUpItem(BacklogItem definition, String origin) {
    this(definition, origin, 0);
  }

  public String id() {
    return definition.id();
  }

  /**
   * The items for the follow-ups one attempt of {@code itemId} in {@code phase} reported, one per
   * distinct id. The id depends only on the item and the title, so a retry or a subphase that
   * reports the same follow-up again names the same item (and the store adds it once).
   */
  public static List<FollowUpItem> of(String itemId, String phase, List<AgentOutcome.FollowUp> followUps,
      String pipeline) {
    Map<String, FollowUpItem> byId = new LinkedHashMap<>();
    for (AgentOutcome.FollowUp followUp : followUps) {
      String id = id(itemId, followUp.title());
      Cuts cuts = new Cuts();
      BacklogItem definition = new BacklogItem(id, cuts.cap(followUp.title(), TITLE_MAX_CHARS), pipeline,
          Priority.MEDIUM, List.of(), List.of(), cuts.cap(followUp.description(), DESCRIPTION_MAX_CHARS),
          InitialStatus.NEW);
      byId.putIfAbsent(id, new FollowUpItem(definition, itemId + "/" + phase, cuts.count()));
    }
    return List.copyOf(byId.values());
  }

  /**
   * {@code ITEM-fu-<first 8 hex digits of sha256(title)>}. A follow-up of a follow-up would add 12
   * characters a generation and outgrow the id limit (ids name job directories): an id that would
   * exceed {@link BacklogItem#MAX_ID_CHARS} keeps the start of the item's id and hashes the whole
   * id with the title, {@code ITEM-PREFIX-fu-<16 hex digits>}, still the same for the same item and
   * title.
   */
  static String id(String itemId, String title) {
    String id = itemId + "-fu-" + SizeCap.sha256Prefix(title).substring(0, 8);
    if (id.length() <= BacklogItem.MAX_ID_CHARS) {
      return id;
    }
    String hash = SizeCap.sha256Prefix(itemId + "\n" + title).substring(0, 16);
    return itemId.substring(0, BacklogItem.MAX_ID_CHARS - 20) + "-fu-" + hash;
  }
}
