package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobRecord;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's first command, through the real launcher, on a copy of the shipped example. */
class ExampleRunIT {
  @TempDir
  Path dir;

  @Test
  void the_shipped_example_runs_to_the_end_and_shows_every_outcome() throws Exception {
    Path example = dir.resolve("examples");
    Launcher.copyTree(Launcher.HOME.resolve("examples"), example);
    String state = dir.resolve("state").toString();

    Launcher.Result run = Launcher.run(dir, "--state", state, "run", "examples/backlog.yaml");
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("every item is done or blocked"), run.out());
    assertTrue(run.out().contains("8 total, 7 done, 1 blocked, 0 remaining"), run.out());
    assertTrue(run.err().contains("WRK-004 fix: failed"), "progress lines on stderr:\n" + run.err());

    Launcher.Result status = Launcher.run(dir, "--state", state, "status", "--json");
    assertEquals(0, status.exitCode(), status.err());
    JsonNode doc = new ObjectMapper().readTree(status.out());
    Map<String, String> statuses = new HashMap<>();
    doc.get("items").forEach(i -> statuses.put(i.get("id").asText(), i.get("status").asText()));
    assertEquals(Map.of("WRK-001", "done", "WRK-002", "done", "WRK-003", "done", "WRK-004", "done",
        "WRK-005", "blocked", "WRK-006", "done", "WRK-007", "done", "WRK-008", "done"), statuses);

    // Every outcome of the agent protocol happened.
    Path stateDir = dir.resolve("state");
    assertEquals(List.of("failed|failed|1", "completed|phase_complete|0"), Stored.jobs(stateDir, "WRK-004", "fix")
        .stream().map(j -> j.state().key() + "|" + j.result() + "|" + j.exitCode()).toList());
    assertEquals(List.of("subphase_complete", "phase_complete"),
        Stored.jobs(stateDir, "WRK-003", "build").stream().map(JobRecord::result).toList());
    assertEquals(List.of("blocked"),
        Stored.jobs(stateDir, "WRK-005", "design").stream().map(JobRecord::result).toList());

    // High priority first, then backlog order, whether or not an item's pipeline has a scope
    // pre-phase (WRK-007 is listed as ready, so it needs no scoping slot and goes first).
    assertEquals(List.of("WRK-007", "WRK-001", "WRK-002", "WRK-003", "WRK-004", "WRK-006", "WRK-005", "WRK-008"),
        Stored.jobs(stateDir).stream().map(JobRecord::itemId).distinct().toList());

    Launcher.Result text = Launcher.run(dir, "--state", state, "status");
    assertTrue(text.out().contains("agent reported blocked in phase design: Needs a product decision"), text.out());

    // A second run has nothing left to do and says so.
    Launcher.Result again = Launcher.run(dir, "--state", state, "run", "examples/backlog.yaml");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("0 phases run"), again.out());
  }

  @Test
  void version_and_help_work_through_the_launcher() throws Exception {
    Launcher.Result version = Launcher.run(dir, "--version");
    assertEquals(0, version.exitCode(), version.err());
    assertTrue(version.out().startsWith("orchestrate 0."), version.out());
    assertEquals("", version.err(), "no JVM or CDS warnings");

    Launcher.Result bad = Launcher.run(dir, "frobnicate");
    assertEquals(2, bad.exitCode());
    assertEquals(1, bad.err().lines().count(), bad.err());
  }
}
