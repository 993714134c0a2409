package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.app.ItemDiff;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code orchestrate diff ID} with real git: the items of a review pipeline wait with their work on
 * their branches; A renames a file, adds a binary one and one whose name and content carry escape
 * sequences; H adds a 2.9 MB file; N never runs. The patch, --stat and --json; the cap; the pager;
 * an unknown id and an item with no branch; a repository whose configuration names programs.
 */
class DiffCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String AGENT = """
      #!/usr/bin/env bash
      cat > /dev/null
      if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
        mv old.txt new.txt
        printf 'changed\\n' >> README.md
        printf 'x\\0y\\0z' > bin.dat
        printf 'line \\033]0;pwned\\007 \\033[2J\\n' > "$(printf 'evil\\033[31m.txt')"
      else
        seq 1 400000 > huge.txt
      fi
      echo done
      """;

  @TempDir
  static Path tmp;

  private static GitRepo repo;

  @BeforeAll
  static void project() throws Exception {
    repo = GitRepo.init(tmp.resolve("repo"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, AGENT);
    repo.write("old.txt", "one\ntwo\nthree\nfour\nfive\n");
    repo.write("backlog.yaml", """
        items:
          - {id: A, title: item a}
          - {id: H, title: item h}
          - {id: N, title: item n}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: work, instructions: "Work."}
        """.formatted(agent));
    repo.commitAll("project");
    CliRunner.Result run = cli(Map.of(), "run", "--no-live", "--target", "A,H", repo.dir.resolve("backlog.yaml")
        .toString());
    assertEquals(0, run.exitCode(), run.out() + run.err());
  }

  @AfterEach
  void terminalBack() {
    DiffCommand.terminal = Pager::stdoutIsTerminal;
  }

  private static CliRunner.Result cli(Map<String, String> env, String... args) {
    List<String> all = new ArrayList<>(List.of("--state", repo.dir.resolve(".orchestrate").toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.runIn(repo.dir, env, all.toArray(String[]::new));
  }

  private static CliRunner.Result ok(String... args) {
    CliRunner.Result r = cli(Map.of(), args);
    assertEquals(0, r.exitCode(), r.err());
    return r;
  }

  @Test
  void the_patch_is_the_branch_against_its_merge_base_with_every_control_character_made_visible() {
    CliRunner.Result r = ok("diff", "A");
    assertTrue(r.out().contains("diff --git a/old.txt b/new.txt\nsimilarity index 100%\n"), r.out());
    assertTrue(r.out().contains("rename from old.txt\nrename to new.txt"), r.out());
    assertTrue(r.out().contains("+changed"), r.out());
    assertTrue(r.out().contains("Binary files /dev/null and b/bin.dat differ"), r.out());
    assertTrue(r.out().contains("+line \\x1b]0;pwned\\x07 \\x1b[2J"), r.out());
    assertFalse(r.out().contains("\u001b") || r.out().contains("\u0007"), "no raw control character: " + r.out());
    assertEquals("", r.err());
  }

  @Test
  void stat_lists_each_file_with_its_status_and_lines() {
    CliRunner.Result r = ok("diff", "A", "--stat");
    String out = r.out();
    assertTrue(out.startsWith("orchestrate/A against main: merge base "
        + repo.git("merge-base", "main", "orchestrate/A").substring(0, 12) + ", head "
        + repo.git("rev-parse", "orchestrate/A").substring(0, 12) + "\n"), out);
    assertTrue(out.contains(" modified     +1 -0          README.md\n"), out);
    assertTrue(out.contains(" added        binary         bin.dat\n"), out);
    assertTrue(out.contains(" renamed      +0 -0          new.txt (from old.txt)\n"), out);
    assertTrue(out.contains(" added        +1 -0          evil\\x1b[31m.txt\n"), out);
    assertTrue(out.endsWith("4 files changed, +2 -0 lines\n"), out);
    assertFalse(out.contains("diff --git"), out);
  }

  @Test
  void json_has_the_commits_the_files_and_the_patch() throws Exception {
    JsonNode doc = JSON.readTree(ok("diff", "A", "--json").out());
    assertEquals(List.of("schema_version", "kind", "item", "status", "branch", "base_branch", "base", "head",
        "files_changed", "additions", "deletions", "files", "files_not_listed", "patch", "patch_bytes", "patch_cut"),
        fields(doc));
    assertEquals("diff", doc.path("kind").asText());
    assertEquals("A", doc.path("item").asText());
    assertEquals("awaiting_review", doc.path("status").asText());
    assertEquals(repo.git("merge-base", "main", "orchestrate/A"), doc.path("base").asText());
    assertEquals(repo.git("rev-parse", "orchestrate/A"), doc.path("head").asText());
    assertEquals(4, doc.path("files_changed").asInt());
    assertEquals(4, doc.path("files").size());
    JsonNode renamed = find(doc, "new.txt");
    assertEquals("renamed", renamed.path("status").asText());
    assertEquals("old.txt", renamed.path("old_path").asText());
    JsonNode binary = find(doc, "bin.dat");
    assertTrue(binary.path("binary").asBoolean());
    assertTrue(binary.path("additions").isNull());
    assertEquals("evil\u001b[31m.txt", find(doc, "evil\u001b[31m.txt").path("path").asText(),
        "JSON has the exact name");
    assertTrue(doc.path("patch").asText().contains("+line \u001b]0;pwned"), "JSON has the exact text");
    assertFalse(doc.path("patch_cut").asBoolean());
    assertEquals(doc.path("patch").asText().getBytes(java.nio.charset.StandardCharsets.UTF_8).length,
        doc.path("patch_bytes").asLong());

    JsonNode stat = JSON.readTree(ok("diff", "A", "--json", "--stat").out());
    assertTrue(stat.path("patch").isNull());
    assertEquals(4, stat.path("files").size());
  }

  @Test
  void a_huge_diff_is_cut_at_its_cap_and_says_so() throws Exception {
    JsonNode doc = JSON.readTree(ok("diff", "H", "--json").out());
    assertTrue(doc.path("patch_cut").asBoolean());
    assertEquals(ItemDiff.JSON_MAX_BYTES, doc.path("patch_bytes").asLong());
    assertEquals(400000, doc.path("additions").asLong(), "the figures count every line, the patch is cut");
    assertTrue(doc.path("patch").asText().startsWith("diff --git a/huge.txt b/huge.txt"));

    CliRunner.Result text = ok("diff", "H");
    assertTrue(text.out().endsWith("+400000\n"), "64 MiB holds all 2.9 MB");
    assertEquals("", text.err());
  }

  @Test
  void an_unknown_id_and_an_item_that_never_ran_are_one_line_usage_errors() {
    CliRunner.Result unknown = cli(Map.of(), "diff", "Z");
    assertEquals(2, unknown.exitCode());
    assertEquals("", unknown.out());
    assertTrue(unknown.err().contains("unknown item 'Z'"), unknown.err());
    assertEquals(1, unknown.err().strip().lines().count(), unknown.err());

    CliRunner.Result never = cli(Map.of(), "diff", "N");
    assertEquals(2, never.exitCode());
    assertTrue(never.err().contains("item 'N' has no branch yet"), never.err());
    assertTrue(never.err().contains("it is new"), never.err());
    assertEquals(1, never.err().strip().lines().count(), never.err());

    CliRunner.Result hostile = cli(Map.of(), "diff", "\u001b]0;x\u0007");
    assertEquals(2, hostile.exitCode());
    assertFalse(hostile.err().contains("\u001b"), hostile.err());
  }

  @Test
  void on_a_terminal_the_output_goes_through_the_users_pager_never_otherwise() throws Exception {
    Path paged = tmp.resolve("paged.txt");
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("PAGER", "cat > '" + paged + "'");
    DiffCommand.terminal = () -> true;
    CliRunner.Result r = cli(env, "diff", "A", "--stat");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertTrue(Files.readString(paged).endsWith("4 files changed, +2 -0 lines\n"), Files.readString(paged));

    Files.delete(paged);
    CliRunner.Result noPager = cli(env, "diff", "A", "--stat", "--no-pager");
    assertTrue(noPager.out().endsWith("4 files changed, +2 -0 lines\n"), noPager.out());
    CliRunner.Result json = cli(env, "diff", "A", "--json");
    assertTrue(json.out().contains("\"kind\" : \"diff\""), json.out());
    DiffCommand.terminal = () -> false;
    CliRunner.Result piped = cli(env, "diff", "A");
    assertTrue(piped.out().contains("diff --git"), piped.out());
    assertFalse(Files.exists(paged), "no pager but on a terminal");
  }

  @Test
  void nothing_the_repository_configures_runs() throws Exception {
    Path marker = tmp.resolve("ran");
    String touch = "sh -c 'touch " + marker + "'";
    Path config = repo.dir.resolve(".git/config");
    String before = Files.readString(config);
    try {
      repo.git("config", "diff.external", touch);
      repo.git("config", "core.pager", touch);
      repo.git("config", "pager.diff", touch);
      repo.git("config", "diff.evil.textconv", touch);
      repo.git("config", "diff.evil.command", touch);
      repo.git("config", "diff.orderFile", "/dev/stdin");
      Files.writeString(repo.dir.resolve(".git/info/attributes"), "* diff=evil\n");
      Map<String, String> env = new HashMap<>(System.getenv());
      env.remove("PAGER");
      env.put("ORCHESTRATE_PAGER", "cat > /dev/null");
      DiffCommand.terminal = () -> true;
      assertEquals(0, cli(env, "diff", "A").exitCode());
      assertEquals(0, cli(Map.of(), "diff", "A", "--stat").exitCode());
      CliRunner.Result json = cli(Map.of(), "diff", "A", "--json");
      assertEquals(0, json.exitCode(), json.err());
      assertTrue(JSON.readTree(json.out()).path("patch").asText().contains("+changed"), "git's own diff");
      assertFalse(Files.exists(marker), "a program of the repository's configuration ran");
    } finally {
      Files.writeString(config, before);
      Files.deleteIfExists(repo.dir.resolve(".git/info/attributes"));
    }
  }

  private static List<String> fields(JsonNode doc) {
    List<String> names = new ArrayList<>();
    doc.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static JsonNode find(JsonNode doc, String path) {
    for (JsonNode f : doc.path("files")) {
      if (f.path("path").asText().equals(path)) {
        return f;
      }
    }
    throw new AssertionError(path + " not in " + doc.path("files"));
  }
}
