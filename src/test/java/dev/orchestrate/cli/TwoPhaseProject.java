package dev.orchestrate.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The config CLI tests run with: a bash agent and one pipeline of two phases, first and second. */
final class TwoPhaseProject {
  private TwoPhaseProject() {
  }

  /** Writes {@code dir/orchestrate.yaml} for the agent script {@code agent}; returns its path. */
  static Path config(Path dir, Path agent) throws IOException {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
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
        """.formatted(agent));
    return config;
  }
}
