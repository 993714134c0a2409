package dev.orchestrate.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaffoldTest {
  @TempDir
  Path dir;

  @Test
  void refuses_before_writing_anything_when_a_file_exists_and_names_each() throws Exception {
    Files.writeString(dir.resolve("backlog.yaml"), "mine");
    Files.createDirectories(dir.resolve("agents"));
    Files.writeString(dir.resolve("agents/example-agent.sh"), "mine");
    Scaffold scaffold = new Scaffold(dir, Path.of("proj"), dir.resolve(".orchestrate"), null, null);

    Scaffold.Refused refused = assertThrows(Scaffold.Refused.class, scaffold::check);

    assertEquals("init would overwrite proj/backlog.yaml, proj/agents/example-agent.sh; nothing was written "
        + "(move them away or init another directory)", refused.getMessage());
    assertFalse(Files.exists(dir.resolve("orchestrate.yaml")));
    assertEquals("mine", Files.readString(dir.resolve("backlog.yaml")));
  }

  @Test
  void refuses_a_file_where_a_directory_it_writes_into_belongs() throws Exception {
    Files.writeString(dir.resolve("agents"), "a file");
    Scaffold scaffold = new Scaffold(dir, Path.of("."), dir.resolve(".orchestrate"), null, null);

    Scaffold.Refused refused = assertThrows(Scaffold.Refused.class, scaffold::check);

    assertEquals(dir.resolve("agents") + " is not a directory; nothing was written (move it away or init another "
        + "directory)", refused.getMessage());
  }

  @Test
  void a_preset_drops_the_example_agent_and_a_url_is_set_in_the_config_quoted() throws Exception {
    String url = "postgresql://ci@db:5432/orch?x=\"1\"";
    Scaffold scaffold = new Scaffold(dir, Path.of("."), dir.resolve(".orchestrate"), AgentPreset.CLAUDE, url);
    List<Path> written = new ArrayList<>();

    scaffold.check();
    boolean ignored = scaffold.write(written::add);

    assertEquals(List.of(Path.of("./orchestrate.yaml"), Path.of("./backlog.yaml")), written);
    assertFalse(Files.exists(dir.resolve("agents")));
    assertTrue(ignored);
    String config = Files.readString(dir.resolve("orchestrate.yaml"));
    assertTrue(config.contains("  preset: claude"), config);
    assertTrue(config.contains("state:\n  url: \"postgresql://ci@db:5432/orch?x=\\\"1\\\"\""), config);
    assertFalse(config.contains("agents/example-agent.sh\"]\n"), config);
  }

  @Test
  void the_example_agent_is_written_executable_beside_the_config() throws Exception {
    new Scaffold(dir, Path.of("."), dir.resolve(".orchestrate"), null, null).write(p -> {});

    assertTrue(Files.isExecutable(dir.resolve("agents/example-agent.sh")));
    assertTrue(Files.readString(dir.resolve("orchestrate.yaml")).contains("# state:\n"));
    assertTrue(Files.isDirectory(dir.resolve(".orchestrate")));
  }
}
