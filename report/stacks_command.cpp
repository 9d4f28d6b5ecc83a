#include "report/commands.h"
