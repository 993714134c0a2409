package dev.orchestrate.mcp;

import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.state.StateBackend;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the tools need of the project, found as the command line finds it: the state, the config
 * (read afresh for each call that needs it, so an edit applies without a restart), the budget
 * windows {@code stats} shows, the user's checkout for a config ({@code approve} integrates there).
 */
public record Project(StateBackend backend, Supplier<Config> config, Supplier<BudgetConfig> budget,
    Function<Config, Path> checkout, Clock clock) {
}
