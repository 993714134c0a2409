package dev.orchestrate.state.sql;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.SyncResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sync of the backlog file into the state's items, for {@link SqlStateRepository}: one
 * transaction that inserts the new items (a hundred to a statement), updates the changed ones and
 * marks those no longer listed, and returns the items as it left them, read once.
 */
final class BacklogSync {
  private final Jdbc jdbc;
  private final SqlStateReader reader;

  BacklogSync(Jdbc jdbc, SqlStateReader reader) {
    this.jdbc = jdbc;
    this.reader = reader;
  }

  /**
   * One transaction; new items and events are inserted a hundred to a statement ({@link
   * Jdbc#inserts}), updates run one prepared statement in batches ({@link Jdbc#batch}): a first
   * sync of a million items prepares a few statements, not two million. A sync that adds {@link
   * #BULK_ROWS} items or more to SQLite counts its rows in {@code structures} once, not per row
   * ({@link CountersPaused}).
   */
  StateRepository.Synced syncAndRead(List<BacklogItem> backlog, Instant now) {
    return jdbc.inTransaction(() -> {
      // Every stored item, read once: what the sync compares the file with, and what it returns.
      List<ItemState> after = new ArrayList<>(reader.items());
      int stored = after.size();
      Map<String, Integer> known = new HashMap<>(stored * 4 / 3 + 1);
      for (int i = 0; i < stored; i++) {
        known.put(after.get(i).id(), i);
      }
      long firstSeq = stored == 0 ? 1 : after.get(stored - 1).seq() + 1;
      long nextSeq = firstSeq;
      long at = now.toEpochMilli();
      List<String> added = new ArrayList<>();
      List<String> returned = new ArrayList<>();
      List<String> vanished = new ArrayList<>();
      int fresh = 0;
      for (BacklogItem item : backlog) {
        fresh += known.containsKey(item.id()) ? 0 : 1;
      }
      CountersPaused paused = fresh >= BULK_ROWS ? CountersPaused.pause(jdbc, COUNTING_TRIGGERS) : null;
      EventCount counted = new EventCount();
      boolean[] listed = new boolean[stored];
      try (Jdbc.Inserts inserts = jdbc.inserts(INSERT_ITEM_HEAD, INSERT_ITEM_ROW);
          Jdbc.Batch updates = jdbc.batch("""
              UPDATE items SET title = ?, pipeline = ?, priority = ?, depends_on = ?, tags = ?,
                     description = ?, in_backlog = 1, updated_at = ?
              WHERE id = ?""");
          Jdbc.Inserts events = jdbc.inserts(Events.INSERT_HEAD, Events.INSERT_ROW)) {
        for (BacklogItem item : backlog) {
          Integer index = known.get(item.id());
          if (index == null) {
            inserts.add(itemRow(item, null, nextSeq, at));
            after.add(new ItemState(item, nextSeq++, true, initialProgress(item)));
            added.add(item.id());
            continue;
          }
          ItemState was = after.get(index);
          listed[index] = true;
          boolean same = sameDefinition(was.definition(), item);
          if (!same || !was.inBacklog()) {
            updates.add(item.title(), item.pipeline(), item.priority().key(), JsonText.array(item.dependsOn()),
                JsonText.array(item.tags()), item.description(), at, item.id());
          }
          if (!was.inBacklog()) {
            returned.add(item.id());
            events.add(counted.of(Events.row(at, item.id(), Event.ITEM_RETURNED, Map.of())));
          }
          // The backlog's copy, unless the stored one must stay (its status hint applied once).
          BacklogItem definition = same ? was.definition()
              : item.initialStatus() == was.definition().initialStatus() ? item
                  : new BacklogItem(item.id(), item.title(), item.pipeline(), item.priority(), item.dependsOn(),
                      item.tags(), item.description(), was.definition().initialStatus());
          after.set(index, new ItemState(definition, was.seq(), true, was.progress(), was.origin()));
        }
        for (int i = 0; i < stored; i++) {
          ItemState item = after.get(i);
          // A follow-up item lives only in the state: the file not listing it is no news.
          if (item.inBacklog() && !listed[i] && item.origin() == null) {
            vanished.add(item.id());
            after.set(i, new ItemState(item.definition(), item.seq(), false, item.progress(), null));
          }
        }
        if (!added.isEmpty()) {
          // The items' rows first; the returned items' events too, so that this sync's events go
          // in one order: returned (in file order), added (in backlog order), vanished.
          inserts.flush();
          events.flush();
          counted.rows += jdbc.execute(ADDED_EVENTS, at, Event.ITEM_ADDED, firstSeq);
        }
        vanished.sort(null);
        try (Jdbc.Batch gone = jdbc.batch("UPDATE items SET in_backlog = 0, updated_at = ? WHERE id = ?")) {
          for (String id : vanished) {
            gone.add(at, id);
            events.add(counted.of(Events.row(at, id, Event.ITEM_VANISHED, Map.of())));
          }
        }
      }
      if (paused != null) {
        resume(jdbc, paused, added.size(), counted.rows, counted.loadBearing);
        jdbc.bulkWritten();
      }
      return new StateRepository.Synced(new SyncResult(added, vanished, returned), after);
    });
  }

  /**
   * Whether the file's entry leaves a stored definition as it is: every field the sync writes
   * (the status hint applies once, so it is not one of them). Field by field, not the record's
   * {@code equals} (docs/architecture.md, "Start-up rules").
   */
  private static boolean sameDefinition(BacklogItem stored, BacklogItem file) {
    return stored.title().equals(file.title()) && stored.pipeline().equals(file.pipeline())
        && stored.priority() == file.priority() && stored.dependsOn().equals(file.dependsOn())
        && stored.tags().equals(file.tags()) && stored.description().equals(file.description());
  }

  /** New items from which a sync counts its rows once ({@link CountersPaused}) instead of per row. */
  static final int BULK_ROWS = 1000;

  /** The events a sync inserts, and how many of them are load-bearing, for {@link CountersPaused}. */
  private static final class EventCount {
    long rows;
    long loadBearing;

    Object[] of(Object[] row) {
      rows++;
      loadBearing += ((Number) row[row.length - 1]).intValue();
      return row;
    }
  }

  /** The SQLite triggers that count inserted items and events, paused for a bulk sync. */
  private static final List<String> COUNTING_TRIGGERS = List.of("items_written", "events_written", "events_kept");

  /** Counts what the paused triggers would have counted, and creates them again. */
  private static void resume(Jdbc jdbc, CountersPaused paused, long items, long events, long loadBearingEvents) {
    jdbc.execute("UPDATE structures SET rows_written = rows_written + ? WHERE name = 'items'", items);
    jdbc.execute("UPDATE structures SET rows_written = rows_written + ?, kept_rows = kept_rows + ? "
        + "WHERE name = 'events'", events, loadBearingEvents);
    paused.resume();
  }

  /**
   * The {@code item.added} event of every item a sync inserted, made from the rows in one
   * statement rather than sent row by row (a million items' events cost 1.6 s of CPU that way); the
   * payload is the one {@link Events#row} writes, {@code {"status":"<initial status>"}}, and the
   * event is routine (not load-bearing).
   */
  private static final String ADDED_EVENTS = """
      INSERT INTO events (at, item_id, kind, payload, load_bearing)
      SELECT CAST(? AS BIGINT), id, CAST(? AS TEXT), '{"status":"' || status || '"}', 0
      FROM items WHERE seq >= ? ORDER BY seq""";

  private static final String INSERT_ITEM_HEAD = """
      INSERT INTO items (id, seq, title, pipeline, priority, depends_on, tags, description,
                         initial_status, in_backlog, status, phase, attempts, blocked_reason,
                         blocked_from, origin, created_at, updated_at)
      VALUES""";
  private static final String INSERT_ITEM_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL, 0, ?, ?, ?, ?, ?)";
  private static final String INSERT_ITEM = INSERT_ITEM_HEAD + " " + INSERT_ITEM_ROW;

  static void insert(Jdbc jdbc, BacklogItem item, String origin, long seq, long at) {
    jdbc.execute(INSERT_ITEM, itemRow(item, origin, seq, at));
  }

  private static Object[] itemRow(BacklogItem item, String origin, long seq, long at) {
    Progress p = initialProgress(item);
    return new Object[] {item.id(), seq, item.title(), item.pipeline(), item.priority().key(),
        JsonText.array(item.dependsOn()), JsonText.array(item.tags()), item.description(),
        item.initialStatus().key(), p.status().key(), p.blockedReason(),
        p.blockedFrom() == null ? null : p.blockedFrom().key(), origin, at, at};
  }

  /** The status hint of the backlog applies once, when the item is first seen. */
  static Progress initialProgress(BacklogItem item) {
    return Progress.initial(item.initialStatus());
  }
}
