"""Local HTTP fakes of GitHub and a documentation site."""
