package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code state} section: state.url and state.lease_timeout, read with the config or alone. */
class StateConfigLoaderTest {
  @TempDir
  Path dir;
  private TestFiles files;

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private List<String> problemsOf(String yaml) {
    Path file = files.write("orchestrate.yaml", yaml);
    return problems(() -> ConfigLoader.load(file));
  }

  @Test
  void a_config_without_a_state_section_has_the_default_state() {
    Config config = ConfigLoader.load(files.write("orchestrate.yaml", "memory: {keep_recent: 5}\n"));
    assertEquals(StateConfig.defaults(), config.state());
    assertNull(config.state().url());
    assertEquals(Duration.ofSeconds(30), config.state().leaseTimeout());
  }

  @Test
  void url_and_lease_timeout_are_read() {
    Config config = ConfigLoader.load(files.write("orchestrate.yaml",
        "state:\n  url: postgresql://me@db:5432/orch?schema=team\n  lease_timeout: 2m\n"));
    assertEquals(new StateConfig("postgresql://me@db:5432/orch?schema=team", Duration.ofMinutes(2)), config.state());
    assertEquals(new StateConfig("../shared", StateConfig.DEFAULT_LEASE_TIMEOUT),
        ConfigLoader.load(files.write("orchestrate.yaml", "state: {url: ../shared}\n")).state());
  }

  @Test
  void lease_timeout_is_between_3s_and_1h() {
    assertEquals(List.of("2:18: state.lease_timeout must be at least 3s (a runner renews its heartbeat every "
        + "third of it), got '2s'"), problemsOf("state:\n  lease_timeout: 2s\n"));
    assertEquals(List.of("2:18: state.lease_timeout must be at most 1h, got '61m'"),
        problemsOf("state:\n  lease_timeout: 61m\n"));
    assertEquals(Duration.ofSeconds(3), ConfigLoader.load(files.write("orchestrate.yaml",
        "state:\n  lease_timeout: 3s\n")).state().leaseTimeout());
    assertEquals(Duration.ofHours(1), ConfigLoader.load(files.write("orchestrate.yaml",
        "state:\n  lease_timeout: 1h\n")).state().leaseTimeout());
  }

  @Test
  void unknown_state_keys_are_errors_with_a_suggestion() {
    assertEquals(List.of("2:3: unknown key 'ulr' in state; did you mean 'url'?"),
        problemsOf("state:\n  ulr: postgresql://db/x\n"));
    assertEquals(List.of("1:1: unknown key 'stat' in the config; did you mean 'state'?"),
        problemsOf("stat: {}\n"));
  }

  @Test
  void a_password_in_state_url_is_refused_without_being_repeated() {
    for (String url : List.of("postgresql://me:hunter22@db/x", "postgres://me:hunter22@db:5432/x?schema=a",
        "postgresql://me@db/x?password=hunter22", "postgresql://me@db/x?schema=a&PASSWORD=hunter22")) {
      List<String> problems = problemsOf("state:\n  url: \"" + url + "\"\n");
      assertEquals(1, problems.size(), problems.toString());
      assertEquals("2:8: state.url contains a password, which would be read by everyone who reads this file and "
          + "shown in messages; remove it, and set PGPASSWORD or put the password in ~/.pgpass (or the file "
          + "PGPASSFILE names) instead", problems.get(0));
      assertFalse(problems.get(0).contains("hunter22"));
    }
  }

  @Test
  void an_empty_url_is_refused_and_a_null_one_is_the_default() {
    assertEquals(List.of("2:8: state.url is empty; name a state directory or a postgresql:// URL, or leave the key "
        + "out for the project's .orchestrate/"), problemsOf("state:\n  url: \" \"\n"));
    assertNull(ConfigLoader.load(files.write("orchestrate.yaml", "state:\n  url:\n")).state().url());
  }

  @Test
  void the_state_section_alone_is_read_without_parsing_a_file_that_has_none() {
    // Not YAML at all: a file without a state line is not parsed, so nothing is reported.
    Path broken = files.write("orchestrate.yaml", "agent: [unclosed\n# state: {url: x}\n");
    assertEquals(StateConfig.defaults(), ConfigLoader.loadState(broken));

    Path withState = files.write("orchestrate.yaml", "agent: {timeout: 5m}\nstate:\n  url: postgresql://db/x\n");
    assertEquals("postgresql://db/x", ConfigLoader.loadState(withState).url());
    // Only the state section is validated: the rest is for the commands that read it.
    Path otherwiseBad = files.write("orchestrate.yaml", "agent: {timout: 5m}\nstate: {url: ./s}\n");
    assertEquals("./s", ConfigLoader.loadState(otherwiseBad).url());
    Path badState = files.write("orchestrate.yaml", "state: {lease_timeout: 1s}\n");
    assertEquals(1, problems(() -> ConfigLoader.loadState(badState)).size());
  }
}
