package dev.orchestrate.app;

import dev.orchestrate.config.Config;
import dev.orchestrate.retention.MaintenanceSchedule;
import dev.orchestrate.retention.Retention;
import dev.orchestrate.retention.RetentionPass;
import dev.orchestrate.retention.RetentionStore;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * One run maintenance pass: retention, continued where it stepped aside for the scheduler, then
 * one stats sample. {@link MaintenanceSchedule} decides when; this is what it runs.
 */
final class RunMaintenance implements MaintenanceSchedule.Pass {
  private final Retention retention;
  private final Config config;
  private final Instant now;
  private final RetentionStore.Condenser condenser;
  private final Runnable sample;
  private RetentionPass stepped;

  RunMaintenance(Retention retention, Config config, Instant now, RetentionStore.Condenser condenser,
      Runnable sample) {
    this.retention = retention;
    this.config = config;
    this.now = now;
    this.condenser = condenser;
    this.sample = sample;
  }

  @Override
  public boolean proceed(BooleanSupplier waiting) {
    stepped = stepped == null
        ? retention.pass(config.retention(), config.memoryKeepRecent(), now, condenser, waiting)
        : retention.resume(stepped, config.retention(), now, condenser, waiting);
    if (stepped.stepped()) {
      return false;
    }
    sample.run();
    return true;
  }

  @Override
  public boolean moreToDo() {
    return stepped != null && !stepped.stepped() && !stepped.finished();
  }
}
