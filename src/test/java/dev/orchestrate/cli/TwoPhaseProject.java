package dev.orchestrate.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The config CLI tests run with: a bash agent and one pipeline of two phases, first and second. */
final class TwoPhaseProject {
  /** A file of src/test/resources by its absolute resource name, e.g. a CLI's recorded output. */
  static Path resource(String name) {
    try {
      return Path.of(TwoPhaseProject.class.getResource(name).toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private TwoPhaseProject() {
  }

  /** Writes {@code dir/orchestrate.yaml} for the agent script {@code agent}; returns its path. */
  static Path config(Path dir, Path agent) throws IOException {
    return config(dir, agent, "command");
  }

  /** As above, with {@code agent.preset}: the script stands in for that CLI. */
  static Path config(Path dir, Path agent, String preset) throws IOException {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
          preset: %s
          command: ["bash", "%s"]
          timeout: 20s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: first
                instructions: "Do the first thing."
              - name: second
                instructions: "Do the second thing."
        """.formatted(preset, agent));
    return config;
  }
}
