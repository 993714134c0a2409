package dev.orchestrate.backlog;

import dev.orchestrate.yaml.Problem;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a run gets its backlog: once at the start, then asked again before every decision so that
 * edits made during a long run are picked up.
 */
public interface BacklogSource extends AutoCloseable {

  /**
   * The last valid backlog; after {@link #synced}, its file without its items (they are in the
   * state then, and the run takes them from there).
   */
  Backlog current();

  /**
   * Says that the items of {@link #current} (or of the backlog {@link #changed} just returned) are
   * in the state now. A source that reads a file lets them go: a run holds each item once, as the
   * state's (docs/architecture.md, "Memory per item"), and what tells a change, the file's
   * modification time and size, is all it keeps. A fixed backlog keeps its items.
   */
  default void synced() {
  }

  /**
   * A new valid backlog when the source changed since the last call, empty otherwise. An invalid
   * change is handed to {@code rejected} once and then ignored until the source changes again.
   */
  Optional<Backlog> changed(Consumer<List<Problem>> rejected);

  /**
   * Stops what the source runs in the background when the run ends: nothing it started outlives
   * the run (a refresh of {@code backlog.source}'s command is killed with its process tree).
   */
  @Override
  default void close() {
  }

  /**
   * The backlog a run reads: the command of {@code backlog.source} when the config sets one (the
   * file is not read then; its directory is the project's), else the file, watched for edits.
   *
   * @throws dev.orchestrate.yaml.ValidationException with every problem found
   */
  static BacklogSource open(java.nio.file.Path file, dev.orchestrate.config.Config config) {
    return config.backlogSource() != null ? CommandBacklog.load(file, config) : WatchedBacklogFile.load(file, config);
  }

  /** A backlog that never changes. */
  static BacklogSource fixed(Backlog backlog) {
    return new BacklogSource() {
      @Override
      public Backlog current() {
        return backlog;
      }

      @Override
      public Optional<Backlog> changed(Consumer<List<Problem>> rejected) {
        return Optional.empty();
      }
    };
  }
}
