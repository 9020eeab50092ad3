from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from atlas.sign_in import SignOut
from runs.views.home import home, nav_links

urlpatterns = [
    path("", home, name="home"),
    path("nav/", nav_links, name="nav-links"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", SignOut.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("runs.urls")),
    path("reviews/", include("reviews.urls")),
]
