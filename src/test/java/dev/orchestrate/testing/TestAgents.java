package dev.orchestrate.testing;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ContextConfig;
import dev.orchestrate.config.ExecutionConfig;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ResultFallback;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Real bash agents written into a test's temporary directory. */
public final class TestAgents {
  private TestAgents() {
  }

  /** Writes {@code body} as a bash script (with {@code set -u}) and returns its path. */
  public static Path script(Path dir, String name, String body) {
    try {
      Path file = dir.resolve(name);
      Files.writeString(file, "#!/usr/bin/env bash\nset -u\n" + body + "\n");
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static AgentConfig agent(Path script) {
    return new AgentConfig(List.of("bash", script.toString()), Duration.ofSeconds(20), Duration.ofMillis(500),
        Map.of(), ResultFallback.EXIT_CODE, 1024 * 1024, 2000);
  }

  /** A config with the feature pipeline (scope | design, build, review) and the given agent. */
  public static Config config(AgentConfig agent, int maxRetries) {
    return config(agent, maxRetries, Fixtures.feature());
  }

  public static Config config(AgentConfig agent, int maxRetries, Pipeline pipeline) {
    return new Config(Optional.empty(), agent, ConfigWithers.withMaxRetries(ExecutionConfig.defaults(), maxRetries),
        pipeline.name(), Map.of(pipeline.name(), pipeline), ContextConfig.defaults(), 50, 20_000);
  }
}
