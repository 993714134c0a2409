package dev.orchestrate.cli;

import picocli.CommandLine;

/** The version from the jar manifest ({@code dev} when run from classes). */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = VersionProvider.class.getPackage().getImplementationVersion();
    return new String[] {"orchestrate " + (v == null ? "dev" : v),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
  }
}
