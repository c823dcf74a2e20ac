"""cardtrail's command line (`cardtrail serve | worker | simulate …`)."""
