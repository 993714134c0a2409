package dev.orchestrate.memory;

import dev.orchestrate.limits.Cuts;
import java.util.List;
import java.util.Objects;

/**
 * A memory to write. {@code id} null means "generate one"; with an id, writing is an idempotent
 * upsert (the insertion order of an existing id is kept). {@code truncated}: {@link #capped} cut
 * the title or the content, so the store counts the write as a truncated write of {@code memory}.
 */
public record NewMemory(String id, MemoryKind kind, String title, String content, List<String> tags,
    String sourceItem, boolean truncated) {
  /** Write-time caps of a memory's content and title. */
  public static final int CONTENT_CHARS = 8000;
  public static final int TITLE_CHARS = 200;

  public NewMemory {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(content, "content");
    title = title == null ? "" : title;
    tags = List.copyOf(tags);
  }

  public NewMemory(String id, MemoryKind kind, String title, String content, List<String> tags, String sourceItem) {
    this(id, kind, title, content, tags, sourceItem, false);
  }

  public boolean isLoadBearing() {
    return MemoryItem.isLoadBearing(kind, tags);
  }

  /** The same memory with title and content cut to the write-time cap, marked truncated if either was. */
  public NewMemory capped() {
    Cuts cuts = new Cuts();
    String cappedTitle = cuts.cap(title, TITLE_CHARS);
    String cappedContent = cuts.cap(content, CONTENT_CHARS);
    return new NewMemory(id, kind, cappedTitle, cappedContent, tags, sourceItem, truncated || cuts.count() > 0);
  }
}
