"""The referee at the table: state machine, journal, announcements, config, feed and the CLI.

The controller is the only package that imports the others (engine, vision, hardware); nothing
imports it.
"""
