package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command's --json, run in several fresh JVMs: the same keys in the same order every time,
 * and every timestamp in the one format (ISO-8601 UTC to the millisecond); compact's text talks
 * about the config key or the flag, whichever set the value.
 */
class JsonConsistencyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LOOKS_LIKE_A_TIME = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T.*");
  private static final Pattern ONE_FORMAT = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$");
  private static final int ROUNDS = 3;

  @TempDir
  Path dir;

  private String state() {
    return dir.resolve("state").toString();
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state()));
    all.addAll(List.of(args));
    CliRunner.Result r = CliRunner.run(all.toArray(String[]::new));
    assertEquals(0, r.exitCode(), String.join(" ", args) + ": " + r.err());
    return r;
  }

  /** A done item with a follow-up, a blocked one, memories of every load-bearing kind, a compact. */
  private Path[] project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" = B ]; then
          printf '{"result": "blocked", "context": "needs a key"}' > "$ORCHESTRATE_RESULT_FILE"
        elif [ "$ORCHESTRATE_PHASE" = second ] && [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          printf '{"result": "phase_complete", "follow_ups": [{"title": "More"}]}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        exit 0
        """);
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    cli("memory", "add", "--kind", "semantic", "--id", "s1", "a fact");
    cli("memory", "add", "--kind", "procedural", "--id", "p1", "a how-to");
    cli("memory", "add", "--kind", "episodic", "--tag", "rejected-path", "--id", "r1", "tried that");
    cli("memory", "add", "--kind", "episodic", "--id", "e1", "it happened");
    cli("stats");
    cli("--quiet", "compact");
    return new Path[] {config, backlog, reviewProject()};
  }

  /** A worktree project whose one item awaits review with its work on its branch, for diff. */
  private Path reviewProject() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path agent = dir.resolve("review-agent.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\nprintf 'changed\\n' >> README.md\nprintf 'new\\n' > new.txt\n");
    repo.write("README.md", "a project\n");
    repo.write("backlog.yaml", "items:\n  - {id: R, title: r}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 20s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: work, instructions: "Work."}
        """.formatted(agent));
    repo.commitAll("project");
    CliRunner.Result r = CliRunner.runIn(repo.dir, Map.of(), "--state", repo.dir.resolve(".orchestrate").toString(),
        "--config", repo.dir.resolve("orchestrate.yaml").toString(), "--quiet", "run", "--no-live",
        repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, r.exitCode(), r.out() + r.err());
    return repo.dir;
  }

  /** The command lines of one round; memory add and supersede use ids of their own per round. */
  private List<List<String>> commands(Path[] project, int round) {
    String s = state();
    String c = project[0].toString();
    return List.of(
        List.of("--state", s, "status", "--json"),
        List.of("--state", s, "status", "A", "--json"),
        List.of("--state", s, "jobs", "--json"),
        List.of("--state", s, "stats", "--json"),
        List.of("--state", s, "--quiet", "compact", "--dry-run", "-v", "--json"),
        List.of("--state", s, "--quiet", "compact", "--json"),
        List.of("--state", s, "--quiet", "compact", "--incremental", "--json"),
        List.of("--state", s, "--config", c, "agents", "--json"),
        List.of("--state", s, "--config", c, "agents", "resume", "agent", "--json"),
        List.of("--state", s, "memory", "list", "--json"),
        List.of("--state", s, "memory", "add", "--kind", "semantic", "--id", "n" + round, "new", "--json"),
        List.of("--state", s, "memory", "supersede", "s1", "--by", "n" + round, "--json"),
        List.of("--state", s, "--config", c, "run", "--dry-run", "--json", project[1].toString()),
        List.of("--state", s, "--config", c, "--quiet", "run", "--json", project[1].toString()),
        List.of("--state", project[2].resolve(".orchestrate").toString(), "--config",
            project[2].resolve("orchestrate.yaml").toString(), "diff", "R", "--json"),
        List.of("--state", project[2].resolve(".orchestrate").toString(), "--config",
            project[2].resolve("orchestrate.yaml").toString(), "diff", "R", "--stat", "--json"));
  }

  private List<String> round(List<List<String>> commands) throws Exception {
    List<String> args = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), JsonRound.class.getName()));
    for (int i = 0; i < commands.size(); i++) {
      if (i > 0) {
        args.add(";;");
      }
      args.addAll(commands.get(i));
    }
    Process p = new ProcessBuilder(args).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "a round did not finish");
    assertEquals(0, p.exitValue(), out);
    List<String> docs = List.of(out.split("\n" + JsonRound.SEPARATOR + "\n", -1)).subList(0, commands.size());
    assertEquals(commands.size(), docs.size());
    return docs;
  }

  /** The order of the keys of every object, by its path (array indices left out). */
  private static void keyOrders(String path, JsonNode node, Map<String, List<String>> into) {
    if (node.isObject()) {
      List<String> keys = new ArrayList<>();
      node.fieldNames().forEachRemaining(keys::add);
      into.putIfAbsent(path, keys);
      node.properties().forEach(e -> keyOrders(path + "." + e.getKey(), e.getValue(), into));
    } else if (node.isArray()) {
      node.forEach(element -> keyOrders(path + "[]", element, into));
    }
  }

  private static void timestamps(String path, JsonNode node, List<String> bad) {
    if (node.isTextual() && LOOKS_LIKE_A_TIME.matcher(node.asText()).matches()
        && !ONE_FORMAT.matcher(node.asText()).matches()) {
      bad.add(path + " = " + node.asText());
    }
    node.properties().forEach(e -> timestamps(path + "." + e.getKey(), e.getValue(), bad));
    if (node.isArray()) {
      node.forEach(element -> timestamps(path + "[]", element, bad));
    }
  }

  @Test
  void every_json_document_keeps_its_key_order_across_jvms_and_uses_one_timestamp_format() throws Exception {
    Path[] project = project();
    List<Map<String, List<String>>> first = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<List<String>> commands = commands(project, round);
      List<String> docs = round(commands);
      for (int i = 0; i < docs.size(); i++) {
        String name = String.join(" ", commands.get(i));
        JsonNode doc = JSON.readTree(docs.get(i));
        Map<String, List<String>> orders = new LinkedHashMap<>();
        keyOrders("", doc, orders);
        List<String> bad = new ArrayList<>();
        timestamps("", doc, bad);
        assertEquals(List.of(), bad, name);
        assertEquals(List.of("schema_version", "kind"), orders.get("").subList(0, 2), name);
        if (round == 0) {
          first.add(orders);
        } else {
          for (Map.Entry<String, List<String>> e : orders.entrySet()) {
            List<String> before = first.get(i).get(e.getKey());
            if (before != null && before.size() == e.getValue().size()) {
              assertEquals(before, e.getValue(), name + " at " + e.getKey());
            }
          }
        }
      }
    }
    assertTrue(first.get(4).containsKey(".memory.protected_by"), "the dry run reports protected_by");
    assertEquals(3, first.get(4).get(".memory.protected_by").size(), "three reasons: " + first.get(4));
    int diff = first.size() - 2;
    assertTrue(first.get(diff).containsKey(".files[]") && first.get(diff + 1).containsKey(".files[]"),
        "diff and diff --stat list the item's files: " + first.get(diff));
  }

  @Test
  void compact_text_names_the_config_key_or_the_flag_that_set_a_value() throws Exception {
    project();
    String configured = cli("--quiet", "compact").out();
    assertTrue(configured.contains("recent (memory.keep_recent 50)"), configured);
    assertTrue(configured.contains("recent (retention.events.max_rows 10000)"), configured);
    String flagged = cli("--quiet", "compact", "--keep-recent", "3").out();
    assertTrue(flagged.contains("recent (--keep-recent 3)"), flagged);
  }

  @Test
  void memory_supersede_has_json() throws Exception {
    project();
    JsonNode doc = JSON.readTree(cli("memory", "supersede", "e1", "--by", "s1", "--json").out());
    assertEquals("memory_supersede", doc.get("kind").asText());
    assertEquals("e1", doc.get("id").asText());
    assertEquals("s1", doc.get("superseded_by").asText());
  }
}
