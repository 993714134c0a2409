package dev.orchestrate.backlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Config;
import dev.orchestrate.yaml.Problem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatchedBacklogFileTest {
  @TempDir
  Path dir;

  private int loads;
  private final List<List<Problem>> rejected = new ArrayList<>();

  private WatchedBacklogFile watch(Path file) {
    return new WatchedBacklogFile(file, Config.defaults(), (f, c) -> {
      loads++;
      return BacklogLoader.load(f, c);
    });
  }

  private Optional<Backlog> changed(WatchedBacklogFile watched) {
    return watched.changed(rejected::add);
  }

  private Path write(String yaml) throws Exception {
    return Files.writeString(dir.resolve("backlog.yaml"), yaml);
  }

  @Test
  void an_unchanged_file_is_not_parsed_again() throws Exception {
    WatchedBacklogFile watched = watch(write("items:\n  - {id: A, title: a}\n"));
    for (int i = 0; i < 10; i++) {
      assertEquals(Optional.empty(), changed(watched));
    }
    assertEquals(1, loads);
  }

  @Test
  void once_synced_it_keeps_the_file_not_the_items_and_still_sees_an_edit() throws Exception {
    Path file = write("items:\n  - {id: A, title: a}\n");
    WatchedBacklogFile watched = watch(file);
    assertEquals(1, watched.current().items().size());

    watched.synced();
    assertEquals(new Backlog(file, List.of()), watched.current());
    assertEquals(dir.toAbsolutePath(), watched.current().directory());
    assertEquals(Optional.empty(), changed(watched));

    write("items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertEquals(List.of("A", "B"), changed(watched).orElseThrow().items().stream().map(BacklogItem::id).toList());
    watched.synced();
    assertTrue(watched.current().items().isEmpty());
    assertEquals(2, loads);
  }

  @Test
  void a_valid_edit_is_returned_once_and_becomes_current() throws Exception {
    WatchedBacklogFile watched = watch(write("items:\n  - {id: A, title: a}\n"));
    write("items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    Backlog edited = changed(watched).orElseThrow();
    assertEquals(List.of("A", "B"), edited.items().stream().map(BacklogItem::id).toList());
    assertEquals(edited, watched.current());
    assertEquals(Optional.empty(), changed(watched));
    assertEquals(2, loads);
  }

  @Test
  void an_invalid_edit_is_rejected_once_and_the_last_good_backlog_stays_current() throws Exception {
    Path file = write("items:\n  - {id: A, title: a}\n");
    WatchedBacklogFile watched = watch(file);
    Backlog good = watched.current();
    write("items:\n  - {id: A, titel: a}\n");

    assertEquals(Optional.empty(), changed(watched));
    assertEquals(Optional.empty(), changed(watched));
    assertEquals(1, rejected.size());
    assertTrue(rejected.get(0).get(0).toString().startsWith(file + ":2:"), rejected.toString());
    assertEquals(good, watched.current());
  }

  @Test
  void an_edit_of_the_same_size_is_seen_through_its_modification_time() throws Exception {
    Path file = write("items:\n  - {id: A, title: a}\n");
    WatchedBacklogFile watched = watch(file);
    write("items:\n  - {id: A, title: b}\n");
    Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 2_000));

    assertEquals("b", changed(watched).orElseThrow().items().get(0).title());
  }

  @Test
  void a_deleted_file_is_rejected_once_and_a_new_file_is_picked_up() throws Exception {
    Path file = write("items:\n  - {id: A, title: a}\n");
    WatchedBacklogFile watched = watch(file);
    Files.delete(file);

    assertEquals(Optional.empty(), changed(watched));
    assertEquals(Optional.empty(), changed(watched));
    assertEquals(1, rejected.size());
    assertEquals(1, loads, "a missing file is not parsed");

    write("items:\n  - {id: B, title: b}\n");
    assertEquals("B", changed(watched).orElseThrow().items().get(0).id());
  }
}
