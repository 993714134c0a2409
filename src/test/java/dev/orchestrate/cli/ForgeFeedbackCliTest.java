package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execution.review_feedback} and {@code land: auto} end to end, in-process, with real git, a
 * bare {@code origin} and a scripted {@code gh} on the commands' PATH that answers from files the
 * test writes: {@code pr create} prints the pull request's URL, {@code pr checks} says green, red or
 * pending, {@code pr view} prints the reviews, {@code pr merge} records that it was called.
 */
class ForgeFeedbackCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private ProjectCli project;
  private GitRepo repo;

  /** The scripted forge: per item (the pull request's last path segment), its checks and its reviews. */
  private static final String GH = """
      #!/usr/bin/env bash
      forge="%1$s"
      echo "$*" >> "$forge/calls.txt"
      case "$1 $2" in
        "pr create")
          while [ $# -gt 0 ]; do [ "$1" = --head ] && head="$2"; shift; done
          echo "Creating pull request for $head"
          echo "https://forge.example/acme/app/pull/${head#orchestrate/}"
          ;;
        "pr checks")
          id="${3##*/}"
          case "$(cat "$forge/checks-$id" 2>/dev/null || echo green)" in
            green) echo "build pass"; exit 0 ;;
            red) echo "build fail: FAILED test_login"; exit 1 ;;
            *) echo "build pending"; exit 75 ;;
          esac
          ;;
        "pr view")
          id="${3##*/}"
          n=$(cat "$forge/views-$id" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$forge/views-$id"
          if [ -f "$forge/review-$id-$n.json" ]; then cat "$forge/review-$id-$n.json"
          elif [ -f "$forge/fixed-$id" ] && [ -f "$forge/after-fix-$id.json" ]; then
            f=$(cat "$forge/fixed-views-$id" 2>/dev/null || echo 0); f=$((f + 1)); echo "$f" > "$forge/fixed-views-$id"
            if [ "$f" -le 2 ]; then cat "$forge/review-$id.json"; else cat "$forge/after-fix-$id.json"; fi
          else cat "$forge/review-$id.json" 2>/dev/null || echo '{"state": "OPEN", "reviews": [], "comments": []}'
          fi
          ;;
        "pr merge")
          echo "$3" >> "$forge/merges.txt"
          echo "Merged pull request $3"
          ;;
        *) echo "gh stand-in: unknown command $*" >&2; exit 2 ;;
      esac
      """;

  private static final String CHANGES_REQUESTED = """
      {"state": "OPEN", "reviewDecision": "CHANGES_REQUESTED",
       "reviews": [{"id": "PRR_1", "author": {"login": "alice"}, "state": "CHANGES_REQUESTED",
                    "body": "Please rename parse_it to parse_config.", "submittedAt": "2026-11-29T10:00:00Z"}],
       "comments": [{"id": "IC_1", "author": {"login": "bob"}, "body": "Also add a test for the empty file.",
                     "createdAt": "2026-11-29T10:01:00Z"}]}
      """;

  private static final String APPROVED = """
      {"state": "OPEN", "reviewDecision": "APPROVED",
       "reviews": [{"id": "PRR_1", "author": {"login": "alice"}, "state": "CHANGES_REQUESTED",
                    "body": "Please rename parse_it to parse_config.", "submittedAt": "2026-11-29T10:00:00Z"},
                   {"id": "PRR_2", "author": {"login": "alice"}, "state": "APPROVED", "body": "",
                    "submittedAt": "2026-11-29T11:00:00Z"}],
       "comments": [{"id": "IC_1", "author": {"login": "bob"}, "body": "Also add a test for the empty file.",
                     "createdAt": "2026-11-29T10:01:00Z"}]}
      """;

  private Path forge() {
    return tmp.resolve("forge");
  }

  /** A project whose items' pull requests are opened, checked, reviewed and merged by the scripted gh. */
  private void project(String backlogItems, String extra) throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    repo.addBareOrigin(tmp.resolve("origin.git"));
    Files.createDirectories(forge());
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path gh = Files.writeString(bin.resolve("gh"), GH.formatted(forge()));
    assertTrue(gh.toFile().setExecutable(true));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        n=$(ls "%1$s"/prompt-$ORCHESTRATE_ITEM_ID-* 2>/dev/null | wc -l)
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/prompt-$ORCHESTRATE_ITEM_ID-$n.md"
        if grep -q parse_config "$ORCHESTRATE_PROMPT_FILE"; then
          echo "def parse_config(): pass" > "parse-$ORCHESTRATE_ITEM_ID.py"
          touch "%1$s/fixed-$ORCHESTRATE_ITEM_ID"
        fi
        echo "work of $ORCHESTRATE_ITEM_ID $n" > "item-$ORCHESTRATE_ITEM_ID.txt"
        """.formatted(forge()));
    String path = "PATH=" + bin + ":$PATH ";
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n" + backlogItems);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_wip: 4
          max_concurrent: 3
          workspace: worktree
          merge: push
          pull_request: "%sgh pr create --head {branch} --base {base} --title {title} --body-file {body_file}"
          checks: "%sgh pr checks {pull_request} --required"
          checks_interval: 1s
          review_feedback: "%sgh pr view {pull_request} --json state,reviewDecision,reviews,comments"
          land: auto
          land_command: "%sgh pr merge {pull_request} --squash"
        %s
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(agent, path, path, path, path, extra));
    repo.commitAll("backlog and config");
  }

  private Map<String, JsonNode> status() throws Exception {
    Map<String, JsonNode> items = new HashMap<>();
    for (JsonNode item : JSON.readTree(project.cli("status", "--json").out()).get("items")) {
      items.put(item.get("id").asText(), item);
    }
    return items;
  }

  @Test
  void changes_requested_reach_the_agent_once_and_the_approved_green_pull_request_is_merged_once()
      throws Exception {
    project("  - {id: A, title: Item A}\n", "");
    Files.writeString(forge().resolve("review-A.json"), CHANGES_REQUESTED);
    Files.writeString(forge().resolve("after-fix-A.json"), APPROVED);

    CliRunner.Result run = project.cli("run", repo.dir.resolve("backlog.yaml").toString());

    assertEquals(0, run.exitCode(), run.err() + run.out());
    JsonNode a = status().get("A");
    assertEquals("done", a.get("status").asText(), a.toString());
    assertEquals("merged", a.get("workspace").get("integration").asText(), a.toString());
    String again = Files.readString(forge().resolve("prompt-A-1.md"));
    assertTrue(again.contains("A review of your pull request asks for changes (round 1)"), again);
    assertTrue(again.contains("alice (changes requested):"), again);
    assertTrue(again.contains("Please rename parse_it to parse_config."), again);
    assertTrue(again.contains("bob (comment):"), again);
    assertTrue(again.contains("Also add a test for the empty file."), again);
    assertFalse(Files.readString(forge().resolve("prompt-A-0.md")).contains("parse_config"));
    assertFalse(Files.exists(forge().resolve("prompt-A-2.md")),
        "the review it was sent stayed changes requested for two polls after the fix: not sent again");
    assertEquals("3", Files.readString(forge().resolve("fixed-views-A")).strip(), "polled until approved");
    assertEquals("https://forge.example/acme/app/pull/A\n", Files.readString(forge().resolve("merges.txt")),
        "merged once, by the configured command");
    assertTrue(repo.git("show", "orchestrate/A:parse-A.py").contains("parse_config"), "the fix was pushed");
    String item = project.cli("status", "A").out();
    assertTrue(item.contains("merged: https://forge.example/acme/app/pull/A"), item);
  }

  @Test
  void nothing_is_merged_red_pending_or_unapproved_and_a_red_round_is_checks_red_not_conflict() throws Exception {
    project("""
          - {id: R, title: "Red checks, approved"}
          - {id: P, title: "Pending checks, approved"}
          - {id: U, title: "Green checks, not approved"}
        """, "  checks_max_rounds: 1\n  checks_timeout: 2s\n  review_feedback_timeout: 2s\n");
    Files.writeString(forge().resolve("checks-R"), "red");
    Files.writeString(forge().resolve("checks-P"), "pending");
    Files.writeString(forge().resolve("review-R.json"), APPROVED);
    Files.writeString(forge().resolve("review-P.json"), APPROVED);
    Files.writeString(forge().resolve("review-U.json"), """
        {"state": "OPEN", "reviewDecision": "REVIEW_REQUIRED", "reviews": [],
         "comments": [{"id": "IC_9", "author": {"login": "carol"}, "body": "Looks fine so far.",
                       "createdAt": "2026-11-29T10:01:00Z"}]}
        """);

    CliRunner.Result run = project.cli("run", repo.dir.resolve("backlog.yaml").toString());

    assertEquals(1, run.exitCode(), run.err() + run.out());
    Map<String, JsonNode> items = status();
    assertFalse(Files.exists(forge().resolve("merges.txt")), "nothing merged");
    assertEquals("blocked", items.get("R").get("status").asText(), items.get("R").toString());
    assertEquals("checks_red", items.get("R").get("workspace").get("integration").asText());
    assertTrue(items.get("R").get("blocked_reason").asText().contains("FAILED test_login"),
        items.get("R").toString());
    assertEquals("blocked", items.get("P").get("status").asText(), items.get("P").toString());
    assertEquals("timed_out", items.get("P").get("workspace").get("integration").asText());
    assertTrue(items.get("P").get("blocked_reason").asText().startsWith("checks still pending"),
        items.get("P").toString());
    assertEquals("blocked", items.get("U").get("status").asText(), items.get("U").toString());
    assertEquals("timed_out", items.get("U").get("workspace").get("integration").asText());
    assertTrue(items.get("U").get("blocked_reason").asText().contains("not approved"), items.get("U").toString());
    for (String id : new String[] {"R", "P", "U"}) {
      assertFalse(Files.exists(forge().resolve("prompt-" + id + "-1.md")), id + "'s agent ran once");
    }
  }
}
