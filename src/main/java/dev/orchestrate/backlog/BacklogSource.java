package dev.orchestrate.backlog;

import dev.orchestrate.yaml.Problem;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a run gets its backlog: once at the start, then asked again before every decision so that
 * edits made during a long run are picked up.
 */
public interface BacklogSource {

  /** The last valid backlog. */
  Backlog current();

  /**
   * A new valid backlog when the source changed since the last call, empty otherwise. An invalid
   * change is handed to {@code rejected} once and then ignored until the source changes again.
   */
  Optional<Backlog> changed(Consumer<List<Problem>> rejected);

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
