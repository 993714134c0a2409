package dev.orchestrate.backlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The files we ship must load, and the reference config must say what the code does. */
class ShippedFilesTest {
  private static final Path HOME = Path.of("").toAbsolutePath();

  @Test
  void the_reference_config_documents_exactly_the_built_in_defaults() {
    Config reference = ConfigLoader.load(HOME.resolve("config/orchestrate.yaml"));
    Config defaults = Config.defaults();
    AgentConfig agent = reference.agent();
    assertEquals(List.of("bash", "agents/example-agent.sh"), agent.command());
    assertEquals(defaults.agent(), new AgentConfig(List.of(), agent.timeout(), agent.killGrace(), agent.env(),
        agent.resultFallback(), agent.logMaxBytes(), agent.outputTailChars()));
    assertEquals(defaults.execution(), reference.execution());
    assertEquals(defaults.defaultPipeline(), reference.defaultPipeline());
    assertEquals(defaults.pipelines(), reference.pipelines());
    assertEquals(defaults.context(), reference.context());
    assertEquals(defaults.memoryKeepRecent(), reference.memoryKeepRecent());
    assertEquals(defaults.memoryBootContextChars(), reference.memoryBootContextChars());
    assertEquals(defaults.retention(), reference.retention());
    assertEquals(defaults.state(), reference.state());
    assertEquals(defaults.backlogMaxBytes(), reference.backlogMaxBytes());
  }

  @Test
  void the_reference_config_documents_the_agent_safety_defaults() {
    AgentConfig agent = ConfigLoader.load(HOME.resolve("config/orchestrate.yaml")).agent();
    AgentConfig defaults = Config.defaults().agent();
    assertEquals(defaults.secretEnv(), agent.secretEnv());
    assertEquals(defaults.stopLeftoverProcesses(), agent.stopLeftoverProcesses());
    assertEquals(defaults.passSummarizerKey(), agent.passSummarizerKey());
  }

  /**
   * Every place the reference config (and so every config init writes) sends its reader exists:
   * {@code (docs/x.md, "Heading")} names a heading of that file, {@code docs/x.md#anchor} one whose
   * anchor it is, and nothing cites a document the repository no longer has (DESIGN, README sections).
   */
  @Test
  void every_document_and_section_the_reference_config_cites_exists() throws Exception {
    String config = Files.readString(HOME.resolve("config/orchestrate.yaml"));
    assertFalse(config.contains("DESIGN"), "DESIGN.md is gone");
    assertFalse(config.contains("(README, "), "the README's sections moved to docs/");
    Matcher cited = Pattern.compile("(docs/[a-z-]+\\.md)(?:, \"([^\"]+)\"|#([a-z0-9-]+))?").matcher(config);
    int found = 0;
    while (cited.find()) {
      found++;
      Path doc = HOME.resolve(cited.group(1));
      assertTrue(Files.isRegularFile(doc), cited.group());
      List<String> headings = Files.readAllLines(doc).stream().filter(l -> l.startsWith("#"))
          .map(l -> l.replaceFirst("^#+ ", "")).toList();
      if (cited.group(2) != null) {
        assertTrue(headings.contains(cited.group(2)), cited.group() + " among " + headings);
      }
      if (cited.group(3) != null) {
        assertTrue(headings.stream().map(h -> h.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 -]", "")
            .replace(' ', '-')).anyMatch(cited.group(3)::equals), cited.group());
      }
    }
    assertTrue(found >= 8, "citations found: " + found);
  }

  @Test
  void the_shipped_example_has_8_items_over_2_pipelines() {
    Config config = ConfigLoader.load(HOME.resolve("examples/orchestrate.yaml"));
    Backlog backlog = BacklogLoader.load(HOME.resolve("examples/backlog.yaml"), config);
    assertEquals(8, backlog.items().size());
    Map<String, Long> perPipeline = backlog.items().stream()
        .collect(Collectors.groupingBy(BacklogItem::pipeline, Collectors.counting()));
    assertEquals(Map.of("feature", 5L, "bugfix", 3L), perPipeline);
  }
}
