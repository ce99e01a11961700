// test_cli.cpp - placeholder, filled below.
