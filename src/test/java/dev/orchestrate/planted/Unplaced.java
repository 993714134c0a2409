package dev.orchestrate.planted;

/** A class in a package ArchitectureTest gives no layer (ArchitectureRulesTest). */
public final class Unplaced {
}
