package dev.orchestrate.backlog;

import dev.orchestrate.config.Config;

import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The backlog file, re-read when its modification time or size changes. Looking costs one
 * {@code stat}; the file is parsed again only when it changed. Once its items are in the state
 * ({@link #synced}) it keeps only the file and what it was when read, not the items.
 */
public final class WatchedBacklogFile implements BacklogSource {
  private final Path file;
  private final Config config;
  private final BiFunction<Path, Config, Backlog> loader;
  private Backlog current;
  private Fingerprint seen;

  WatchedBacklogFile(Path file, Config config, BiFunction<Path, Config, Backlog> loader) {
    this.file = file;
    this.config = config;
    this.loader = loader;
    // The fingerprint is taken before the read: an edit racing the first load is seen at the next look.
    this.seen = Fingerprint.of(file);
    this.current = loader.apply(file, config);
  }

  /**
   * Loads the file and starts watching it.
   *
   * @throws ValidationException with every problem found, as {@link BacklogLoader#load} does
   */
  public static WatchedBacklogFile load(Path file, Config config) {
    return new WatchedBacklogFile(file, config, BacklogLoader::load);
  }

  @Override
  public Backlog current() {
    return current;
  }

  @Override
  public void synced() {
    if (!current.items().isEmpty()) {
      current = new Backlog(current.file(), List.of());
    }
  }

  @Override
  public Optional<Backlog> changed(Consumer<List<Problem>> rejected) {
    Fingerprint now = Fingerprint.of(file);
    if (now == null || now.equals(seen)) {
      return Optional.empty();
    }
    seen = now;
    if (now.equals(Fingerprint.MISSING)) {
      // Not "every item vanished": a deleted file is an edit we cannot use.
      rejected.accept(List.of(new Problem(file.toString(), 0, 0,
          "the file was deleted; the run goes on with the items it listed before")));
      return Optional.empty();
    }
    try {
      current = loader.apply(file, config);
      return Optional.of(current);
    } catch (ValidationException e) {
      rejected.accept(e.problems());
      return Optional.empty();
    }
  }

  private record Fingerprint(FileTime modified, long size) {
    static final Fingerprint MISSING = new Fingerprint(FileTime.fromMillis(0), -1);

    static Fingerprint of(Path file) {
      try {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return new Fingerprint(attributes.lastModifiedTime(), attributes.size());
      } catch (NoSuchFileException e) {
        return MISSING;
      } catch (IOException e) {
        // Unreadable now: treat it as unchanged and look again at the next tick.
        return null;
      }
    }
  }
}
