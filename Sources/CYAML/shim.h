// The system libyaml (Debian libyaml-dev, pkg-config yaml-0.1), imported into Swift as CYAML.
#include <yaml.h>
