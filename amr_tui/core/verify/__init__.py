"""Is a fact still true? What an entry cites that can be checked against code, and the verdicts.

``evidence`` finds what an entry's text cites (paths, symbols, config names, scripts, make
targets, modules, commits, branches); ``manifests`` reads the scripts and targets of a
package.json, pyproject.toml, Makefile or justfile; ``units`` says which lines of a memory file
are facts to check; ``verdict`` judges each piece of evidence against facts about a code repo
(``CodeFacts``) that the git layer gathers. Pure: no git, no I/O. See docs/verify.md.
"""
